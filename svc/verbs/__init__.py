"""The verbs that speak to a running svc over its public API: ``tail``, ``replay``, ``query`` and
``schedules preview``. Each takes ``--url``, ``--key`` (or ``SVC_URL``, ``SVC_KEY``) and ``--json``."""
