from enum import StrEnum

class AccessLevel(StrEnum):
    ADMIN = "ADMIN"
    PUBLISH = "PUBLISH"
    READ = "READ"
    WRITE = "WRITE"

    def __str__(self) -> str:
        return str(self.value)
