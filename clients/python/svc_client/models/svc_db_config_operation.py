from enum import StrEnum

class SvcDbConfigOperation(StrEnum):
    INSERT = "INSERT"
    UPDATE = "UPDATE"

    def __str__(self) -> str:
        return str(self.value)
