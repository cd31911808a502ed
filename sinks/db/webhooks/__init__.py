"""The metadata DB's side of custom webhooks: definitions and keys, deliveries and attempts, history, dedup,
replay."""
