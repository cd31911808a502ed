from enum import StrEnum

class ExecutionStatus(StrEnum):
    FAILED = "FAILED"
    FILTERED = "FILTERED"
    PROCESSING = "PROCESSING"
    QUEUED = "QUEUED"
    SUCCESS = "SUCCESS"
    TRANSFORM_FAILED = "TRANSFORM_FAILED"

    def __str__(self) -> str:
        return str(self.value)
