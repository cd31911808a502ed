from enum import StrEnum

class MaintenanceAction(StrEnum):
    COMPACT = "COMPACT"
    EXPIRE_SNAPSHOTS = "EXPIRE_SNAPSHOTS"
    REMOVE_ORPHANS = "REMOVE_ORPHANS"

    def __str__(self) -> str:
        return str(self.value)
