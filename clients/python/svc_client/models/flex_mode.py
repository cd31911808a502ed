from enum import StrEnum

class FlexMode(StrEnum):
    FLEXIBLE = "FLEXIBLE"
    OFF = "OFF"

    def __str__(self) -> str:
        return str(self.value)
