from enum import StrEnum

class ListedTableLevel(StrEnum):
    READ = "READ"
    WRITE = "WRITE"

    def __str__(self) -> str:
        return str(self.value)
