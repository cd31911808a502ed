from enum import StrEnum

class DestinationAnswerState(StrEnum):
    CLOSED = "CLOSED"
    HALF_OPEN = "HALF_OPEN"
    OPEN = "OPEN"

    def __str__(self) -> str:
        return str(self.value)
