"""A season's figures as text, for the terminal."""

from __future__ import annotations

from drill.season.figures import SeasonFigures
from drill.values.units import format_size


def hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h"


def policy_line(figures: SeasonFigures) -> str:
    p = figures.policies
    yes = {True: "yes", False: "no"}
    return (
        f"spares per island {p['spares']}, drain on hardware Xid {yes[p['auto_drain']]},"
        f" automatic restart {yes[p['auto_restart']]}, health check before restart"
        f" {yes[p['health_check']]}, checkpoint every {p['checkpoint_every']}"
        f" steps, keep {p['keep']}"
    )


def rate_line(figures: SeasonFigures) -> list[str]:
    """What the failure rate is, and that the fleet is scaled when it is."""
    if not figures.node_mtbf:
        return []
    line = f"Failure rate: one per node every {figures.node_mtbf / 3600:,.0f} h"
    if figures.scale > 1:
        line += (
            f", each node standing for {figures.scale} of a bigger fleet's, so the fleet fails"
            f" {figures.scale} times as often"
        )
    return [line + "."]


def render(figures: SeasonFigures) -> str:
    length = figures.length
    out = [
        f"Season of {length / 86400:g} days on {figures.incident} (seed {figures.seed})",
        f"Policies: {policy_line(figures)}",
        "",
        f"Effective training time: {hours(figures.effective)} of {hours(length)}"
        f" ({figures.effective_share:.1%})",
        f"Interruptions of your job: {len(figures.interruptions)}"
        f" (of {figures.strikes} anywhere on the fleet)",
        *rate_line(figures),
        "",
        f"{'cause':<34}{'count':>6}{'redone':>10}{'down':>10}{'lost':>10}",
    ]
    for row in figures.causes:
        out.append(
            f"{row.text:<34}{row.interruptions:>6}{hours(row.lost_work):>10}"
            f"{hours(row.down):>10}{hours(row.lost):>10}"
        )
    out += ["", "Where the time went:"]
    for name, seconds in figures.account():
        out.append(f"  {name:<26}{hours(seconds):>10}  {seconds / length:6.1%}")
    out += [
        "",
        f"Checkpoints: {figures.checkpoint_writes} written, {format_size(figures.checkpoint_size)}"
        f" each, {format_size(figures.storage_written)} written in all;"
        f" {format_size(figures.storage_peak)} held at most,"
        f" {format_size(int(figures.storage_mean))} on average.",
    ]
    return "\n".join(out) + "\n"
