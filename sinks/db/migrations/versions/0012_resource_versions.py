"""resource_versions: numbered PUBLISHED / DRAFT / ARCHIVED versions of each handler resource

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resource_versions",
        sa.Column("resource_id", sa.String(length=32), nullable=False),
        sa.Column("version_number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("endpoint", sa.String(length=2000), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("version_number >= 1", name=op.f("ck_resource_versions_version_number_positive")),
        sa.CheckConstraint(
            "state IN ('PUBLISHED', 'DRAFT', 'ARCHIVED')", name=op.f("ck_resource_versions_state_known")
        ),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["handler_resources.id"],
            name=op.f("fk_resource_versions_resource_id_handler_resources"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("resource_id", "version_number", name=op.f("pk_resource_versions")),
    )
    # Every resource registered before versions existed runs its one endpoint as version 1, PUBLISHED: the
    # version configs without a version object resolve to, so they keep calling what they called.
    op.execute(
        "INSERT INTO resource_versions (resource_id, version_number, state, endpoint, created_at) "
        "SELECT id, 1, 'PUBLISHED', endpoint, created_at FROM handler_resources"
    )


def downgrade() -> None:
    op.drop_table("resource_versions")
