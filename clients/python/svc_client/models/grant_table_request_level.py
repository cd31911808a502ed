from enum import StrEnum

class GrantTableRequestLevel(StrEnum):
    READ = "READ"
    WRITE = "WRITE"

    def __str__(self) -> str:
        return str(self.value)
