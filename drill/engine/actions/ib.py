"""`ibstat NODE`: the node's InfiniBand ports as ibstat prints them, then the error counters of
each port as perfquery reads them. A port that keeps dropping shows as a LinkDownedCounter that
climbs; symbol and receive errors beside it point at that port's cable, optic or HCA, and the
same count on every port of every node behind a leaf points at the switch."""

from __future__ import annotations

from drill.engine.actions.context import Call, Context
from drill.engine.actions.diagnose import _unreachable
from drill.sim.hca import CA_TYPE, DOWN_RATE, RATE, HcaPort

SM_LID = 1  # the subnet manager's own port
CAP_MASK = "0x5A00"  # what perfquery prints for a ConnectX port's counter capabilities
IN = "    "  # ibstat indents with tabs; spaces read the same in a terminal


def ibstat(ctx: Context, call: Call) -> str:
    node = call["node"]
    refused = _unreachable(node)
    if refused:
        return refused
    lines = ["$ ibstat"]
    for port in node.hcas:
        lines += _ca(port)
    for port in node.hcas:
        lines += _counters(port)
    return "\n".join(lines)


def _ca(port: HcaPort) -> list[str]:
    state, physical = ("Active", "LinkUp") if port.up else ("Down", "Polling")
    rate, lid, sm_lid = (RATE, port.lid, SM_LID) if port.up else (DOWN_RATE, 0, 0)
    return [
        f"CA '{port.name}'",
        f"{IN}CA type: {CA_TYPE}",
        f"{IN}Number of ports: 1",
        f"{IN}Port 1:",
        f"{IN * 2}State: {state}",
        f"{IN * 2}Physical state: {physical}",
        f"{IN * 2}Rate: {rate}",
        f"{IN * 2}Base lid: {lid}",
        f"{IN * 2}SM lid: {sm_lid}",
        f"{IN * 2}Link layer: InfiniBand",
    ]


def _counters(port: HcaPort) -> list[str]:
    return [
        f"$ perfquery -C {port.name} -P 1",
        f"# Port counters: Lid {port.lid} port 1 (CapMask: {CAP_MASK})",
        _dotted("SymbolErrorCounter", port.symbol_errors),
        _dotted("LinkDownedCounter", port.link_downed),
        _dotted("PortRcvErrors", port.rcv_errors),
    ]


def _dotted(name: str, value: int) -> str:
    """perfquery pads each counter's name with dots to one column."""
    return f"{name}:".ljust(33, ".") + str(value)
