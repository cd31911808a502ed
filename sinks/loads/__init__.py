"""Bulk loads: read uploaded CSV or Parquet files and convert them to a table's columns.

A load job reads each source like this::

    reader = read_batches(filesystem, path, fmt, csv_options, source=uri)  # LoadFileError
    plan, unused = plan_columns(reader.column_names, columns, mapping)    # LoadMappingError
    sample: list[Rejected] = []
    for part in reader.batches():                                         # LoadFileError midway
        converted = convert_batch(
            part.data, columns, plan, csv=csv_options, encrypt=encrypt, source=uri,
            first_row=part.first_row, malformed=part.malformed, sample=sample,
        )
        # converted.table: accepted rows; converted.rejected_count includes malformed lines

The accepted rows go to `stage.StagedFiles`, which writes them as the table's data files while reading goes
on, and `staged.commit_staged` (sinks/iceberg) commits those files once; `job.load_sources` runs a load.
"""

from sinks.loads.convert import Converted, Rejected, convert_batch, plan_columns, user_schema
from sinks.loads.exceptions import LoadError, LoadFileError, LoadMappingError
from sinks.loads.read import CsvOptions, MalformedRow, SourceBatch, SourceReader, read_batches

__all__ = [
    "Converted",
    "CsvOptions",
    "LoadError",
    "LoadFileError",
    "LoadMappingError",
    "MalformedRow",
    "Rejected",
    "SourceBatch",
    "SourceReader",
    "convert_batch",
    "plan_columns",
    "read_batches",
    "user_schema",
]
