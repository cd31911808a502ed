from enum import StrEnum

class DownloadRequestFormat(StrEnum):
    CSV = "CSV"
    JSONL = "JSONL"
    PARQUET = "PARQUET"

    def __str__(self) -> str:
        return str(self.value)
