from enum import StrEnum

class SvcDbConfigGroupsLogicalOperatorType0(StrEnum):
    AND = "AND"
    OR = "OR"

    def __str__(self) -> str:
        return str(self.value)
