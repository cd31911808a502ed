"""The boto3 session every S3 user of the service starts from: the object store and an ``s3://`` warehouse's
FileIO properties. Its own module, outside both, so the object store may raise the storage errors of
``sinks.iceberg`` without the two packages importing each other.

Credentials come from the standard AWS chain (environment, shared files, instance role); none are settings.
"""

from __future__ import annotations

import os

import boto3
import botocore.loaders
import botocore.session

# botocore's service descriptions, read once per process: a new session otherwise parses S3's model and the
# endpoint rules again for each client. Credentials and region stay per session.
_LOADER = botocore.loaders.create_loader()


def new_session(region: str | None = None) -> boto3.session.Session:
    """A boto3 session on the standard AWS chain, sharing the process's parsed service descriptions."""
    core = botocore.session.get_session()
    core.register_component("data_loader", _LOADER)
    return boto3.session.Session(botocore_session=core, region_name=region)


def s3_region() -> str:
    """boto3 itself reads only AWS_DEFAULT_REGION; AWS_REGION is what the other AWS SDKs (and compose) set."""
    return os.environ.get("AWS_REGION") or new_session().region_name or "us-east-1"
