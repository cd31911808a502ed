"""Alert rules, their alerts and notifications (docs/webhooks.md, "Alerts")."""
