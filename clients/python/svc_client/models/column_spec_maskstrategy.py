from enum import StrEnum

class ColumnSpecMaskstrategy(StrEnum):
    FULL = "FULL"
    LAST4 = "LAST4"

    def __str__(self) -> str:
        return str(self.value)
