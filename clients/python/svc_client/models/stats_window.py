from enum import StrEnum

class StatsWindow(StrEnum):
    DAY = "DAY"
    HOUR = "HOUR"

    def __str__(self) -> str:
        return str(self.value)
