from enum import StrEnum

class LoadRequestFormatType0(StrEnum):
    CSV = "CSV"
    PARQUET = "PARQUET"

    def __str__(self) -> str:
        return str(self.value)
