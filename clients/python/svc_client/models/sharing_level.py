from enum import StrEnum

class SharingLevel(StrEnum):
    COMPANY = "COMPANY"
    PRIVATE = "PRIVATE"
    SPECIFIC_MEMBER = "SPECIFIC_MEMBER"

    def __str__(self) -> str:
        return str(self.value)
