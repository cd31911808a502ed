from enum import StrEnum

class OverlapPolicy(StrEnum):
    ALLOW = "ALLOW"
    BUFFER_ONE = "BUFFER_ONE"
    SKIP = "SKIP"

    def __str__(self) -> str:
        return str(self.value)
