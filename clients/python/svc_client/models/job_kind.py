from enum import StrEnum

class JobKind(StrEnum):
    APPEND = "APPEND"
    LOAD = "LOAD"
    QUERY = "QUERY"

    def __str__(self) -> str:
        return str(self.value)
