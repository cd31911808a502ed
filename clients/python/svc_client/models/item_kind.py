from enum import StrEnum

class ItemKind(StrEnum):
    DESTINATION = "DESTINATION"
    EXECUTION = "EXECUTION"
    MAINTENANCE = "MAINTENANCE"
    RUN = "RUN"
    TABLE_WRITE = "TABLE_WRITE"

    def __str__(self) -> str:
        return str(self.value)
