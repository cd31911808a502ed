"""The worker's webhook area: run each queued delivery attempt's handler and record its outcome."""
