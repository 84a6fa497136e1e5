"""The merge of one batch's last changes into a table, as sqlglot expressions.

``DeltaTarget`` hands the conditions to delta-rs as predicates; ``SparkDeltaTarget`` runs them as
one Spark SQL ``MERGE``. Both get them from ``merge_plan``, so the two Delta targets cannot drift
apart, and both guard every change with ``ordering.not_older``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sqlglot import exp

from spark_sink.ordering import SQL_DIALECT, not_older, to_sql

__all__ = ["MergePlan", "merge_plan", "merge_statement", "SOURCE_ALIAS", "TARGET_ALIAS"]

SOURCE_ALIAS = "s"
TARGET_ALIAS = "t"

_MERGE_INTO = "MERGE INTO "


@dataclass(frozen=True)
class MergePlan:
    """When a source row (one per key) deletes, replaces or inserts a stored row."""

    on: exp.Expression
    delete_if: exp.Expression | None  # None: nothing is deleted (soft deletes are updates)
    update_if: exp.Expression
    insert_if: exp.Expression | None  # None: every unmatched row is inserted

    def sql(self) -> dict[str, str | None]:
        """The conditions as predicate text, by clause."""
        return {name: None if cond is None else to_sql(cond)
                for name, cond in (("on", self.on), ("delete_if", self.delete_if),
                                   ("update_if", self.update_if), ("insert_if", self.insert_if))}


def merge_plan(keys: Sequence[str], *, soft_delete: bool) -> MergePlan:
    """Match on `keys`; ``d`` deletes (or, with `soft_delete`, is stored like any other change);
    a stored row is only touched by a change that is not older than it."""
    if not keys:
        raise ValueError("a merge needs at least one key column")
    on = exp.and_(*[exp.column(k, table=TARGET_ALIAS).eq(exp.column(k, table=SOURCE_ALIAS)) for k in keys])
    guard = not_older(SOURCE_ALIAS, TARGET_ALIAS)
    if soft_delete:
        return MergePlan(on=on, delete_if=None, update_if=guard, insert_if=None)
    op = exp.column("__op", table=SOURCE_ALIAS)
    is_delete = op.eq(exp.Literal.string("d"))
    is_not_delete = op.copy().neq(exp.Literal.string("d"))
    return MergePlan(on=on, delete_if=exp.and_(is_delete, guard), update_if=exp.and_(is_not_delete, guard.copy()),
                     insert_if=is_not_delete.copy())


def merge_statement(table: str, view: str, plan: MergePlan) -> str:
    """Spark SQL: ``MERGE WITH SCHEMA EVOLUTION INTO table t USING view s ...`` (Delta, Spark 4)."""
    whens = []
    if plan.delete_if is not None:
        whens.append(exp.When(matched=True, condition=plan.delete_if, then=exp.var("DELETE")))
    whens.append(exp.When(matched=True, condition=plan.update_if, then=exp.Update(expressions=[exp.Star()])))
    whens.append(exp.When(matched=False, condition=plan.insert_if, then=exp.Insert(this=exp.Star())))
    merge = exp.Merge(this=exp.alias_(exp.to_table(table, dialect=SQL_DIALECT), TARGET_ALIAS, table=True),
                      using=exp.alias_(exp.to_table(view, dialect=SQL_DIALECT), SOURCE_ALIAS, table=True),
                      on=plan.on, whens=exp.Whens(expressions=whens))
    sql = merge.sql(dialect=SQL_DIALECT, identify=True)
    # sqlglot has no syntax for Delta's schema-evolution clause; it goes right after MERGE, so
    # new columns of the batch are added to the table as delta-rs's merge_schema does.
    if not sql.startswith(_MERGE_INTO):
        raise RuntimeError(f"sqlglot rendered an unexpected MERGE: {sql[:80]}")
    return "MERGE WITH SCHEMA EVOLUTION INTO " + sql[len(_MERGE_INTO):]
