from enum import StrEnum

class WhereGroupLogicaloperator(StrEnum):
    AND = "AND"
    OR = "OR"

    def __str__(self) -> str:
        return str(self.value)
