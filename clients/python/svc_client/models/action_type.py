from enum import StrEnum

class ActionType(StrEnum):
    INVOKE_AGENT = "INVOKE_AGENT"
    INVOKE_TOOL = "INVOKE_TOOL"
    UPDATE_SVCDB = "UPDATE_SVCDB"

    def __str__(self) -> str:
        return str(self.value)
