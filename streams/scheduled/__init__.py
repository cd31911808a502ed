"""The worker's scheduler area: turn due fires into runs and run each run's action."""
