"""Examples of the multipart upload requests (``/clients/svcdb-intake/...``): one file in three parts."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples.ids import UPLOAD_FILE_NAME, UPLOAD_ID, UPLOAD_S3_KEY

INITIATE: JsonDict = {"examples": [{"fileName": UPLOAD_FILE_NAME}]}

PART_URLS: JsonDict = {
    "examples": [
        {"uploadId": UPLOAD_ID, "s3Key": UPLOAD_S3_KEY, "partNumbers": [1, 2, 3]},
        {"uploadId": UPLOAD_ID, "s3Key": UPLOAD_S3_KEY, "partNumbers": [3]},
    ]
}

# Each part's ETag as its PUT answered it (the local store's: quoted hex; quotes may be left out).
COMPLETE: JsonDict = {
    "examples": [
        {
            "uploadId": UPLOAD_ID,
            "s3Key": UPLOAD_S3_KEY,
            "partETags": {
                "1": '"64b2c9e888d9b99a26cab3628b4f8ca9"',
                "2": '"84fdfd02ab7c3fbaba1a8ba891b801b9"',
                "3": '"6862f4e3add443273aed616715c14e4a"',
            },
        }
    ]
}

ABORT: JsonDict = {"examples": [{"uploadId": UPLOAD_ID, "s3Key": UPLOAD_S3_KEY}]}
