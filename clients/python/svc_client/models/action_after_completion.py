from enum import StrEnum

class ActionAfterCompletion(StrEnum):
    DELETE = "DELETE"
    NONE = "NONE"

    def __str__(self) -> str:
        return str(self.value)
