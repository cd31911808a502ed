from enum import StrEnum

class EveryConfigUnit(StrEnum):
    DAYS = "DAYS"
    HOURS = "HOURS"
    MINUTES = "MINUTES"

    def __str__(self) -> str:
        return str(self.value)
