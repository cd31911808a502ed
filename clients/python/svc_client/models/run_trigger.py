from enum import StrEnum

class RunTrigger(StrEnum):
    BACKFILL = "BACKFILL"
    RUN_NOW = "RUN_NOW"
    SCHEDULE = "SCHEDULE"

    def __str__(self) -> str:
        return str(self.value)
