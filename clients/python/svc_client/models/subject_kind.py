from enum import StrEnum

class SubjectKind(StrEnum):
    DESTINATION = "DESTINATION"
    EVENT = "EVENT"
    TABLE = "TABLE"
    WEBHOOK = "WEBHOOK"

    def __str__(self) -> str:
        return str(self.value)
