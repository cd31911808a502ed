from enum import StrEnum

class ConditionType(StrEnum):
    CIRCUIT_OPEN = "CIRCUIT_OPEN"
    SCHEDULED_RUN = "SCHEDULED_RUN"
    TABLE_FAILURE = "TABLE_FAILURE"
    WEBHOOK_FAILURES = "WEBHOOK_FAILURES"

    def __str__(self) -> str:
        return str(self.value)
