from enum import StrEnum

class LoadRequestMode(StrEnum):
    APPEND = "APPEND"
    REPLACE = "REPLACE"

    def __str__(self) -> str:
        return str(self.value)
