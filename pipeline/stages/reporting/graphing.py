"""The state graph drawn as an inline SVG picture, laid out here (no layout engine).

Layered layout, left to right: a state's column is its breadth-first distance from the
start state S0; within a column states are ordered by the mean row of the states that
lead to them (one barycentre pass keeps crossings down). Forward edges are curves
between columns, edges back to an earlier (or the same) column arc over the top,
self-loops sit on a node's corner. Parallel edges get one label ("click Add +2"); each
edge keeps its own arrow and a tooltip with its full action.

Past ``MAX_NODES`` states the picture keeps the most visited ones (S0 always) and says
how many states and transitions were left out. State titles and action labels come
from the app: escaped, and shortened in the picture with the full text in tooltips.
This module must not read evidence or write files.
"""

from __future__ import annotations

import collections
import dataclasses

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.reporting import layout

MAX_NODES = 60  # states drawn; more are left out (most visited kept)
LABELLED_EDGES = 120  # above this many drawn edge groups, labels go to tooltips only
NODE_W, NODE_H = 118, 42  # pixels
COL_PITCH, ROW_PITCH = 240, 74  # pixels between column / row origins
PAD, ARC_ROOM = 24, 70  # margin; extra room above the first row for back-edge arcs
LABEL_CHARS = 17  # what fits between two columns
CENTRED_ROWS = 8  # columns are centred when the tallest has at most this many states
FIT_WIDTH = 1500  # pixels; a picture up to this wide is scaled to the page, a wider one scrolls
VISIT_COLOURS = ("#eef4fb", "#d4e5f7", "#a9cbee", "#6fa6df", "#3b7fc9", "#1f5fa8")  # light → heavy


@dataclasses.dataclass(frozen=True)
class Picture:
    svg: str
    shown_nodes: int
    shown_edges: int
    omitted_nodes: int
    omitted_edges: int


def _visits(node: evidence.StateNode) -> int:
    return max(1, len(node.steps))


def _keep(graph: evidence.StateGraph, limit: int) -> list[evidence.StateNode]:
    if len(graph.nodes) <= limit:
        return list(graph.nodes)
    start = graph.nodes[0].id
    ranked = sorted(graph.nodes, key=lambda n: (n.id != start, -_visits(n), n.first_step))
    kept = {n.id for n in ranked[:limit]}
    return [n for n in graph.nodes if n.id in kept]


def _layers(nodes: list[evidence.StateNode], edges: list[evidence.StateEdge]) -> dict[str, int]:
    """Breadth-first distance from the first node; states it cannot reach go in
    one extra column after the last."""
    succ: dict[str, list[str]] = collections.defaultdict(list)
    for e in edges:
        succ[e.source].append(e.target)
    layer = {nodes[0].id: 0}
    queue = collections.deque([nodes[0].id])
    while queue:
        cur = queue.popleft()
        for nxt in succ[cur]:
            if nxt not in layer:
                layer[nxt] = layer[cur] + 1
                queue.append(nxt)
    extra = max(layer.values()) + 1
    for n in nodes:
        layer.setdefault(n.id, extra)
    return layer


def _order(nodes: list[evidence.StateNode], edges: list[evidence.StateEdge],
           layer: dict[str, int]) -> dict[str, tuple[int, int]]:
    """(column, row) of every state."""
    columns: dict[int, list[evidence.StateNode]] = collections.defaultdict(list)
    for n in nodes:
        columns[layer[n.id]].append(n)
    preds: dict[str, list[str]] = collections.defaultdict(list)
    for e in edges:
        if layer[e.source] < layer[e.target]:
            preds[e.target].append(e.source)
    row: dict[str, int] = {}
    for col in sorted(columns):
        def centre(n: evidence.StateNode) -> tuple[float, int]:
            known = [row[p] for p in preds[n.id] if p in row]
            return (sum(known) / len(known) if known else float("inf"), n.first_step)
        for i, n in enumerate(sorted(columns[col], key=centre)):
            row[n.id] = i
    return {n.id: (layer[n.id], row[n.id]) for n in nodes}


def _fill(visits: int, most: int) -> str:
    if most <= 1:
        return VISIT_COLOURS[1]
    share = (visits - 1) / (most - 1)
    return VISIT_COLOURS[min(len(VISIT_COLOURS) - 1, int(share * (len(VISIT_COLOURS) - 1) + 0.5))]


def _bezier(p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float],
            p3: tuple[float, float], t: float) -> tuple[float, float]:
    u = 1 - t
    return (u ** 3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t ** 3 * p3[0],
            u ** 3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t ** 3 * p3[1])


def _route(s: tuple[float, float], t: tuple[float, float], scol: int, tcol: int, offset: int,
           ceiling: float, floor: float) -> tuple[str, list[tuple[float, float]], str]:
    """Path data, label points to try (best first) and label anchor of one edge.
    ``s`` / ``t`` are node top-left corners; ``offset`` separates parallel edges;
    ``ceiling`` / ``floor`` bound the nodes a long back edge passes over or under."""
    (sx, sy), (tx, ty) = s, t
    if s == t:  # self-loop on the top edge, label above it
        r = 14 + 6 * offset
        x0, x1, y = sx + NODE_W - 44, sx + NODE_W - 14, sy
        pts = ((x0, y), (x0 - r * 0.4, y - r * 1.7), (x1 + r * 0.4, y - r * 1.7), (x1, y))
        return _path(pts), [(x1 - 15, y - r * 1.35 - 4)], "middle"
    if tcol > scol:  # forward: right side to left side
        dy = (offset % 3 - 1) * 6 if offset else 0
        p0, p3 = (sx + NODE_W, sy + NODE_H / 2 + dy), (tx, ty + NODE_H / 2 + dy)
        bend = (p3[0] - p0[0]) * 0.45
        pts = (p0, (p0[0] + bend, p0[1]), (p3[0] - bend, p3[1]), p3)
        spots = [(x, y - 4) for x, y in (_bezier(*pts, t) for t in (0.5, 0.64, 0.36, 0.76))]
        return _path(pts), spots, "middle"
    if tcol == scol - 1:  # one column back: left side to right side, bowed below
        bow = 22 + 8 * offset
        p0, p3 = (sx, sy + NODE_H / 2 + 8), (tx + NODE_W, ty + NODE_H / 2 + 8)
        bend = (p0[0] - p3[0]) * 0.4
        pts = (p0, (p0[0] - bend, p0[1] + bow), (p3[0] + bend, p3[1] + bow), p3)
        return _path(pts), [(x, y + 12) for x, y in (_bezier(*pts, t) for t in (0.5, 0.35, 0.65))], "middle"
    if tcol == scol:  # same column: a bracket on the right
        reach = 36 + 10 * offset
        p0, p3 = (sx + NODE_W, sy + NODE_H / 2 - 6), (tx + NODE_W, ty + NODE_H / 2 - 6)
        pts = (p0, (p0[0] + reach, p0[1]), (p3[0] + reach, p3[1]), p3)
        return _path(pts), [(x + 4, y + 4) for x, y in (_bezier(*pts, t) for t in (0.5, 0.3, 0.7))], "start"
    if (sy + ty) / 2 - ceiling <= floor - (sy + ty + 2 * NODE_H) / 2:
        # further back, from the upper half: arc over every node between the columns
        p0, p3 = (sx + NODE_W / 2 - 10 - 6 * offset, sy), (tx + NODE_W / 2 + 10 + 6 * offset, ty)
        peak = min(ceiling, sy, ty) - 34 - 8 * offset
        pts = (p0, (p0[0], peak), (p3[0], peak), p3)
        return _path(pts), [(x, y - 4) for x, y in (_bezier(*pts, t) for t in (0.5, 0.3, 0.7, 0.2, 0.8))], "middle"
    # further back, from the lower half: arc under them
    p0 = (sx + NODE_W / 2 - 10 - 6 * offset, sy + NODE_H)
    p3 = (tx + NODE_W / 2 + 10 + 6 * offset, ty + NODE_H)
    trough = max(floor, p0[1], p3[1]) + 34 + 8 * offset
    pts = (p0, (p0[0], trough), (p3[0], trough), p3)
    return _path(pts), [(x, y + 14) for x, y in (_bezier(*pts, t) for t in (0.5, 0.3, 0.7, 0.2, 0.8))], "middle"


def _path(pts: tuple[tuple[float, float], ...]) -> str:
    return "M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}".format(*(c for p in pts for c in p))


class _Labels:
    """Greedy placement: a label that would overlap a node or an earlier label tries
    other points along its edge and small moves up or down until it is clear."""

    CHAR_W, HEIGHT, STEP = 6.3, 13.0, 7.0

    def __init__(self, obstacles: list[tuple[float, float, float, float]]) -> None:
        self.boxes = list(obstacles)  # (x0, y0, x1, y1)

    def place(self, spots: list[tuple[float, float]], text: str, anchor: str) -> tuple[float, float] | None:
        """Where the label goes; None when every spot is taken (the edge's tooltip
        still has the label)."""
        width = len(text) * self.CHAR_W
        for shift in (0, -1, 1, -2, 2, -3, 3):
            for x, y in spots:
                left = x - width / 2 if anchor == "middle" else x
                top = y + shift * self.STEP - self.HEIGHT + 3
                box = (left - 2, top, left + width + 2, top + self.HEIGHT)
                if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in self.boxes):
                    self.boxes.append(box)
                    return x, y + shift * self.STEP
        return None


class _Grid:
    """Where each kept state sits: its column and row, and the picture's size."""

    def __init__(self, place: dict[str, tuple[int, int]]) -> None:
        self.place = place
        self.rows = collections.Counter(col for col, _ in place.values())
        self.tallest = max(self.rows.values())
        self.top = PAD + ARC_ROOM
        self.width = PAD * 2 + (max(self.rows) + 1) * COL_PITCH - (COL_PITCH - NODE_W) + 40
        # room for edges bowed under the nodes
        self.height = self.top + self.tallest * ROW_PITCH - (ROW_PITCH - NODE_H) + PAD + 56
        self.col_top: dict[int, float] = {}
        self.col_bottom: dict[int, float] = {}
        for state in place:
            col, y = place[state][0], self.corner(state)[1]
            self.col_top[col] = min(self.col_top.get(col, y), y)
            self.col_bottom[col] = max(self.col_bottom.get(col, y + NODE_H), y + NODE_H)

    def corner(self, state: str) -> tuple[float, float]:
        col, row = self.place[state]
        # centre short columns; in a tall picture keep them at the top, where the box opens
        shift = (self.tallest - self.rows[col]) * ROW_PITCH / 2 if self.tallest <= CENTRED_ROWS else 0
        return PAD + col * COL_PITCH, self.top + shift + row * ROW_PITCH


def _opening(grid: _Grid, states: int, transitions: int) -> str:
    width, height = grid.width, grid.height
    # A little too wide: shrink to the box (text stays legible); much too wide: scroll.
    fit = ' style="max-width:100%;height:auto"' if width <= FIT_WIDTH else ""
    return (f'<svg class="stategraph" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"{fit} '
            f'viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" font-size="11" '
            f'role="img" aria-label="state graph: {states} states, {transitions} transitions">'
            '<defs>'
            '<marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#57606a"/></marker>'
            '<marker id="arr-back" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8c959f"/></marker>'
            '<marker id="arr-fail" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#cf222e"/></marker>'
            '</defs>')


def _edges(grid: _Grid, edges: list[evidence.StateEdge]) -> tuple[list[str], list[str]]:
    """The edges' paths and, when there are few enough, their labels."""
    place, corner = grid.place, grid.corner
    groups: dict[tuple[str, str], list[evidence.StateEdge]] = collections.defaultdict(list)
    for e in edges:
        groups[(e.source, e.target)].append(e)
    placer = _Labels([(x - 2, y - 2, x + NODE_W + 2, y + NODE_H + 2) for x, y in map(corner, place)])
    paths, labels = [], []
    for (source, target), group in groups.items():
        scol, tcol = place[source][0], place[target][0]
        kind = "forward" if tcol > scol else "self" if source == target else "back"
        between = range(min(scol, tcol), max(scol, tcol) + 1)
        ceiling, floor = min(grid.col_top[c] for c in between), max(grid.col_bottom[c] for c in between)
        spots: list[tuple[float, float]] = []
        anchor = "middle"
        for offset, e in enumerate(group):
            path, points, how = _route(corner(source), corner(target), scol, tcol, offset, ceiling, floor)
            if offset == 0:
                spots, anchor = points, how
            colour, marker, dash = (("#cf222e", "arr-fail", ' stroke-dasharray="5 3"') if not e.ok else
                                    ("#57606a", "arr", "") if kind == "forward" else ("#8c959f", "arr-back", ""))
            if e.ok and e.idle and len(e.idle) == len(e.steps):  # nothing came of it: dotted
                dash = ' stroke-dasharray="1.5 2.5"'
            steps = ", ".join(str(s) for s in e.steps)
            tip = f"{source} → {target}: {e.action} (step{'s' if len(e.steps) != 1 else ''} {steps})"
            tip += "" if e.ok else " — the action failed"
            if e.idle:
                tip += f" — no effect at step{'s' if len(e.idle) != 1 else ''} {', '.join(map(str, e.idle))}"
            paths.append(f'<path class="edge {kind}" d="{path}" fill="none" stroke="{colour}" stroke-width="1.4"'
                         f'{dash} marker-end="url(#{marker})"><title>{layout.esc(tip)}</title></path>')
        if len(groups) <= LABELLED_EDGES:
            text = layout.short(group[0].action, LABEL_CHARS) + (f" +{len(group) - 1}" if len(group) > 1 else "")
            tip = "\n".join(f"{e.action} (steps {', '.join(map(str, e.steps))})" for e in group)
            spot = placer.place(spots, text, anchor)
            if spot is None:
                continue
            lx, ly = spot
            labels.append(f'<text class="elabel" x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" fill="#424a53" '
                          f'stroke="#fcfcfd" stroke-width="4" paint-order="stroke">'
                          f'<title>{layout.esc(tip)}</title>{layout.esc(text)}</text>')
    return paths, labels


def _node(n: evidence.StateNode, at: tuple[float, float], start: bool, most: int, why: str | None,
          link: str | None) -> str:
    x, y = at
    visits = _visits(n)
    fill = _fill(visits, most)
    dark = VISIT_COLOURS.index(fill) >= 4
    stroke, sw = ("#cf222e", 2.5) if why else ("#24292f", 2.2) if start else ("#8c959f", 1)
    tip = [f"{n.id}" + (" (start)" if start else ""), n.title or "(no title)", n.url,
           f"visited {visits}× — steps {', '.join(map(str, n.steps))}"]
    if why:
        tip.append(f"⚠ {why}")
    inner = (f'<rect x="{x}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}" rx="8" fill="{fill}" '
             f'stroke="{stroke}" stroke-width="{sw}"/>'
             f'<text x="{x + 9}" y="{y + 17:.1f}" font-weight="700" font-size="12.5" '
             f'fill="{"#ffffff" if dark else "#1f2328"}">{layout.esc(n.id)}</text>'
             f'<text x="{x + NODE_W - 9}" y="{y + 17:.1f}" text-anchor="end" '
             f'fill="{"#dbe9f8" if dark else "#59636e"}">×{visits}</text>'
             f'<text x="{x + 9}" y="{y + 33:.1f}" fill="{"#eef4fb" if dark else "#424a53"}">'
             f'{layout.esc(layout.short(n.title or n.url or "", 17))}</text>')
    if why:
        inner += (f'<circle cx="{x + NODE_W - 2}" cy="{y + 2:.1f}" r="7" fill="#cf222e"/>'
                  f'<text x="{x + NODE_W - 2}" y="{y + 6:.1f}" text-anchor="middle" fill="#fff" '
                  f'font-weight="700">!</text>')
    body = f'<title>{layout.esc(chr(10).join(tip))}</title>{inner}'
    if link:
        body = f'<a href="{layout.esc(link)}">{body}</a>'
    return f'<g class="node" data-state="{layout.esc(n.id)}">{body}</g>'


def draw(graph: evidence.StateGraph, flagged: dict[str, str] | None = None,
         href: dict[str, str] | None = None, limit: int = MAX_NODES) -> Picture:
    """The picture of ``graph``. ``flagged`` maps a state id to why it is marked (errors
    seen there); ``href`` maps a state id to a link (e.g. its screenshot in the gallery)."""
    flagged, href = flagged or {}, href or {}
    if not graph.nodes:
        return Picture("", 0, 0, 0, 0)
    nodes = _keep(graph, limit)
    ids = {n.id for n in nodes}
    edges = [e for e in graph.edges if e.source in ids and e.target in ids]
    grid = _Grid(_order(nodes, edges, _layers(nodes, edges)))
    paths, labels = _edges(grid, edges)
    most = max(_visits(n) for n in nodes)
    out = [_opening(grid, len(nodes), len(edges)), *paths]
    out += [_node(n, grid.corner(n.id), n is nodes[0], most, flagged.get(n.id), href.get(n.id)) for n in nodes]
    out.extend(labels)  # last, so labels sit above nodes and edges
    out.append("</svg>")
    return Picture("".join(out), len(nodes), len(edges),
                   len(graph.nodes) - len(nodes), len(graph.edges) - len(edges))
