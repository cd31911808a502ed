"""The metadata DB's side of scheduled events: events, runs, due fires, overlap, retries, controls and
sweeps."""
