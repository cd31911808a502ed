"""The systems a Python team would build instead of svc, each written the way its own documentation shows,
driven by bench_peers.py with the same load and the same handler as svc."""
