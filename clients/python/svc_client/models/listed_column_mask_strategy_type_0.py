from enum import StrEnum

class ListedColumnMaskStrategyType0(StrEnum):
    FULL = "FULL"
    LAST4 = "LAST4"

    def __str__(self) -> str:
        return str(self.value)
