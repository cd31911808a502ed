from enum import StrEnum

class RunStatus(StrEnum):
    FAILED = "FAILED"
    MISSED = "MISSED"
    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    SKIPPED = "SKIPPED"
    SUCCEEDED = "SUCCEEDED"

    def __str__(self) -> str:
        return str(self.value)
