"""Wire models of scheduled events: schedules, actions, controls, retries, catch-up, backfill and preview."""
