from enum import StrEnum

class ResolvedBy(StrEnum):
    CALL = "CALL"
    CLEAR = "CLEAR"

    def __str__(self) -> str:
        return str(self.value)
