"""The first gradebook: learners, collected saves, one result each with its components and
timeline.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "learners",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_learners")),
        sa.UniqueConstraint("key", name=op.f("uq_learners_key")),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("night", sa.String(length=40), nullable=False),
        sa.Column("file", sa.String(length=200), nullable=False),
        sa.Column("found_as", sa.Text(), nullable=False),
        sa.Column("handed_in", sa.DateTime(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name=op.f("fk_submissions_learner_id_learners")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
        sa.UniqueConstraint("sha256", name=op.f("uq_submissions_sha256")),
    )
    op.create_index(op.f("ix_submissions_learner_id"), "submissions", ["learner_id"], unique=False)
    op.create_table(
        "results",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("total", sa.Float(), nullable=True),
        sa.Column("grade", sa.String(length=4), nullable=True),
        sa.Column("refusal_line", sa.Integer(), nullable=True),
        sa.Column("refusal_field", sa.String(length=200), nullable=True),
        sa.Column("refusal_reason", sa.Text(), nullable=True),
        sa.Column("first_wrong_act", sa.Text(), nullable=True),
        sa.Column("feedback_html", sa.Text(), nullable=True),
        sa.Column("engine_version", sa.String(length=64), nullable=False),
        sa.Column("drill_version", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submissions.id"],
            name=op.f("fk_results_submission_id_submissions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("submission_id", name=op.f("pk_results")),
    )
    for table in ("result_components", "timeline_lines"):
        extra: list[sa.Column] = (
            [
                sa.Column("name", sa.String(length=40), nullable=False),
                sa.Column("points", sa.Float(), nullable=False),
                sa.Column("weight", sa.Float(), nullable=False),
            ]
            if table == "result_components"
            else [
                sa.Column("night_seconds", sa.Float(), nullable=False),
                sa.Column("clock", sa.String(length=20), nullable=False),
                sa.Column("kind", sa.String(length=10), nullable=False),
                sa.Column("text", sa.Text(), nullable=False),
            ]
        )
        op.create_table(
            table,
            sa.Column("submission_id", sa.Integer(), nullable=False),
            sa.Column("position", sa.Integer(), nullable=False),
            *extra,
            sa.ForeignKeyConstraint(
                ["submission_id"],
                ["results.submission_id"],
                name=op.f(f"fk_{table}_submission_id_results"),
                ondelete="CASCADE",
            ),
            sa.PrimaryKeyConstraint("submission_id", "position", name=op.f(f"pk_{table}")),
        )


def downgrade() -> None:
    op.drop_table("timeline_lines")
    op.drop_table("result_components")
    op.drop_table("results")
    op.drop_index(op.f("ix_submissions_learner_id"), table_name="submissions")
    op.drop_table("submissions")
    op.drop_table("learners")
