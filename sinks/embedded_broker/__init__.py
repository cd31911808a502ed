"""The embedded broker (Tansu, in memory) that ``svc up`` runs, boxed in: everything svc does only because
of it lives here, so the rest of the code reads the same for the embedded broker and Apache Kafka.

- ``process``: the broker as a child process, and its topics created the moment it listens.
- ``client``: the producer's profile (keyless records sticky per time slot, paced delivery sends).
- ``fetch_wait``: the worker consumer's adaptive fetch wait (installed by ``svc/patches.py``).
- ``renewal_limits`` and ``watch``: when a renewal is due (a partition's records, the broker's memory).
- ``rotation``: the renewal itself, which moves every svc topic to a new generation and deletes the old.
- ``generations``: the signal file that tells producers and workers which generations to use; read only
  here and by the producer (``sinks/kafka.py``), an import-linter contract says so.
- ``consumer_topics``: the workers' agents follow the generations the signal names.
"""
