"""The HTML of the drill-down's answers (:class:`~scorer.site.explain.QuestionView`), made
in Python: a run page holds thousands of snippets and template macros would cost most of
the build (as the table rows, :func:`scorer.site.tables.rows_html`).  Every text is escaped
(:func:`markupsafe.escape`), participants' above all; marks are whole :class:`Segment` runs.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from markupsafe import Markup

from scorer.measures.snippets import pubmed_id
from scorer.site import labels
from scorer.site.escaping import escape
from scorer.site.explain import ExactExplained, OwnAnswer, QuestionView, ShownSnippet

NO_ANSWER = '<p class="empty">No answer shown.</p>\n'


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _number(value) -> str:
    return "-" if value is None else f"{value:.4f}"


def _segments(snippet: ShownSnippet) -> str:
    return "".join(f"<mark>{escape(s.text)}</mark>" if s.marked else escape(s.text) for s in snippet.segments)


def _snippet(s: ShownSnippet) -> str:
    quirk = ' <strong class="quirk">credited by the official evaluator without any overlap</strong>'
    return (f'<p class="sn"><span class="where">#{s.rank} {escape(s.sections)} {s.begin}-{s.end}, {s.shared} shared'
            f'{quirk if s.credited_without_overlap else ""}</span><br>{_segments(s)}</p>\n')


@lru_cache(maxsize=4096)
def _gold_snippets(pmid: str, gold: tuple[ShownSnippet, ...]) -> str:
    """The gold side of a document (the same for every run of a table, so made once)."""
    out = [f'<div class="gold-side"><p class="where">Gold, PMID {escape(pmid)}</p>\n']
    out += [f'<p class="sn"><span class="where">{escape(g.sections)} {g.begin}-{g.end}</span><br>{_segments(g)}</p>\n'
            for g in gold] or ['<p class="empty">The gold has no snippet of this document.</p>\n']
    out.append("</div>\n")
    return "".join(out)


def _documents(q: QuestionView) -> str:
    docs = q.documents or ()
    relevant = sum(d.relevant for d in docs)
    out = [f"<h4>Documents: {relevant} relevant (✓) of {len(docs)} returned, the gold has {q.gold_documents}</h4>\n"]
    if not docs:
        return out[0] + '<p class="empty">No document returned.</p>\n'
    out.append('<ol class="ranked-docs">')
    out += [f'<li class="{"hit" if d.relevant else "miss"}">{escape(d.pmid)} {"✓" if d.relevant else "✗"}'
            f'{" (repeat)" if d.repeat else ""}</li>' for d in docs]
    out.append("</ol>\n")
    return "".join(out)


def _snippets(q: QuestionView) -> str:
    groups = q.snippets or ()
    count = sum(len(g.returned) for g in groups)
    out = [f"<h4>Snippets: {count} returned (the gold has {q.gold_snippets})</h4>\n"]
    for g in groups:
        out.append(f'<div class="snippet-pair">\n<div><p class="where">Returned, PMID {escape(g.pmid)}</p>\n')
        out += [_snippet(s) for s in g.returned]
        out.append("</div>\n")
        out.append(_gold_snippets(g.pmid, g.gold))
        out.append("</div>\n")
    return "".join(out)


def _exact(e: ExactExplained) -> str:
    out = ["<h4>Exact answer</h4>\n"]
    if e.type == "yesno":
        verdict = f'<span class="{"hit" if e.correct else "miss"}">{"right" if e.correct else "wrong"}</span>'
        out.append(f"<p>Answer: <strong>{escape(e.given if e.answered else 'none')}</strong>; gold: "
                   f"<strong>{escape(e.gold_label or '-')}</strong>: {verdict}</p>\n")
        return "".join(out)
    if e.entries:
        out.append('<ol class="entries">\n')
        for entry in e.entries:
            text = escape(" / ".join(entry.strings))
            if entry.matched is not None:
                out.append(f'<li class="hit">{text}: matches the gold synonym <q class="synonym">'
                           f"{escape(entry.matched)}</q></li>\n")
            else:
                out.append(f'<li class="miss">{text}: matches no gold synonym</li>\n')
        out.append("</ol>\n")
        if e.type == "factoid":
            out.append(f"<p>First right answer at rank <strong>{e.rank}</strong>.</p>\n" if e.rank
                       else "<p>No answer matches the gold.</p>\n")
    else:
        out.append('<p class="empty">No exact answer.</p>\n')
    out.append(f'<p class="legend">Gold: {escape("; ".join(" / ".join(g) for g in e.gold_entries))}</p>\n')
    return "".join(out)


def _ideal(q: QuestionView) -> str:
    out = ['<h4>Ideal answer</h4>\n<div class="snippet-pair">\n<div class="snippet"><p class="where">This run</p>\n']
    out.append(f"<blockquote>{escape(q.ideal)}</blockquote>\n" if q.ideal is not None
               else '<p class="empty">No ideal answer.</p>\n')
    if q.ideal_values:
        out.append('<dl class="facts values">' + "".join(
            f"<dt>{escape(labels.measure_label(m))}</dt><dd>{_number(v)}</dd>" for m, v in q.ideal_values) + "</dl>\n")
    out.append('</div>\n<div class="snippet gold-side">\n')
    out += [f'<p class="where">Gold {i}</p>\n<blockquote>{escape(g)}</blockquote>\n'
            for i, g in enumerate(q.gold_ideal, 1)] or ['<p class="empty">The gold has no ideal answer.</p>\n']
    out.append("</div>\n</div>\n")
    return "".join(out)


def _distance(d: int | None) -> str:
    return "no path" if d is None else _plural(d, "link")


def _label_list(items: Sequence[tuple[str, int | None]], side: str) -> str:
    if not items:
        return "none"
    return ", ".join(f'<code class="miss">{escape(x)}</code> ({_distance(d)} from the nearest {side} label)'
                     for x, d in items)


def _labels(q: QuestionView) -> str:
    shown = q.labels
    assert shown is not None
    right = ", ".join(f"<code>{escape(x)}</code>" for x in shown.correct) or "none"
    return (f"<p>Right: {right}</p>\n<p>Predicted, not in the gold: {_label_list(shown.wrong, 'gold')}</p>\n"
            f"<p>Gold, not predicted: {_label_list(shown.missed, 'predicted')}</p>\n")


def _choice(q: QuestionView) -> str:
    c = q.choice
    assert c is not None
    out = ['<ol class="candidates">\n']
    for x in c.candidates:
        css = "hit" if x.correct else ("miss" if x.chosen else "")
        chosen = f' <strong>{"named, not answered (NoA)" if c.unanswered else "chosen"}</strong>' if x.chosen else ""
        out.append(f'<li class="{css}">{escape(x.text or x.id)}{chosen}{" <em>correct</em>" if x.correct else ""}</li>\n')
    out.append("</ol>\n")
    out.append("<p>Not answered.</p>\n" if c.unanswered else
               f'<p>Answered <span class="{"hit" if c.right else "miss"}">{"right" if c.right else "wrong"}</span>.</p>\n')
    return "".join(out)


def _own(o: OwnAnswer) -> str:
    """A run's own answer to a question whose gold is sealed: its items, unmarked."""
    out = []
    if o.documents is not None:
        out.append(f"<h4>Documents: {len(o.documents)} returned</h4>\n")
        out += (['<ol class="ranked-docs">'] + [f"<li>{escape(pubmed_id(d))}</li>" for d in o.documents] + ["</ol>\n"]
                if o.documents else ['<p class="empty">No document returned.</p>\n'])
    if o.snippets is not None:
        out.append(f"<h4>Snippets: {len(o.snippets)} returned</h4>\n")
    out += [f'<p class="sn"><span class="where">#{rank} PMID {escape(pubmed_id(s.document))} '
            f'{escape(s.begin_section)} {s.begin}-{s.end}</span><br>{escape(s.text)}</p>\n'
            for rank, s in enumerate(o.snippets or (), 1)]
    if o.exact:
        out.append("<h4>Exact answer</h4>\n<ol>" + "".join(f"<li>{escape(' / '.join(e))}</li>" for e in o.exact)
                   + "</ol>\n")
    if o.ideal is not None:
        out.append(f'<h4>Ideal answer</h4>\n<div class="snippet"><p>{escape(o.ideal)}</p></div>\n')
    if o.labels is not None:
        out.append(f"<p>Predicted: {', '.join(f'<code>{escape(x)}</code>' for x in o.labels) or 'none'}</p>\n")
    if o.candidates is not None:
        named = "named, not answered (NoA)" if o.unanswered else "chosen"
        out += (['<ol class="candidates">\n']
                + [f"<li>{escape(text)}{f' <strong>{named}</strong>' if chosen else ''}</li>\n"
                   for text, chosen in o.candidates] + ["</ol>\n", "<p>Not answered.</p>\n" if o.unanswered else ""])
    return "".join(out)


def parts_html(q: QuestionView) -> str:
    """Everything shown of one question's answer (no summary line)."""
    out = [] if q.own is None else [_own(q.own)]
    if q.documents is not None:
        out.append(_documents(q))
    if q.snippets is not None:
        out.append(_snippets(q))
    if q.exact is not None:
        out.append(_exact(q.exact))
    if q.has_ideal:
        out.append(_ideal(q))
    if q.labels is not None:
        out.append(_labels(q))
    if q.choice is not None:
        out.append(_choice(q))
    return "".join(out)


def summary_html(q: QuestionView) -> str:
    """The one line of a closed question: its type and body (Task A: the counts)."""
    if q.labels is not None:
        return (f"PMID {escape(q.id)}: {len(q.labels.correct)} right, {len(q.labels.wrong)} wrong, "
                f"{len(q.labels.missed)} missed")
    if q.own is not None and q.own.labels is not None:
        return f"PMID {escape(q.id)}: {_plural(len(q.own.labels), 'label')} predicted"
    kind = f'<span class="qtype">{escape(q.type)}</span> ' if q.type else ""
    return f"{kind}{escape(q.body or q.id)}"


def questions_html(views: Sequence[QuestionView], parts: Sequence[str], opened: int = 1) -> Markup:
    """A ``<details>`` per question (``parts``: the :func:`parts_html` of each), the first
    ``opened`` open, the others closed (a closed one's content is laid out only when opened)."""
    out = []
    for i, (q, body) in enumerate(zip(views, parts)):
        out.append(f'<details class="answer"{" open" if i < opened else ""}>\n<summary>{summary_html(q)}</summary>\n'
                   f'<div class="answer-body">\n<p class="legend">{"PMID" if q.labelled else "Question"} '
                   f"<code>{escape(q.id)}</code></p>\n{body}</div>\n</details>\n")
    return Markup("".join(out))


def sides_html(sides: Sequence[tuple], name_a: str, name_b: str, parts_a: dict, parts_b: dict) -> Markup:
    """The questions two runs differ most on (:func:`scorer.site.drilldown.differing`),
    each a ``<details>`` (the first open) with both answers side by side; ``parts_a`` /
    ``parts_b``: question id -> the :func:`parts_html` of each run's answer."""
    out = []
    for i, (qid, diff, qa, qb) in enumerate(sides):
        columns = [f'<div class="side"><h3>{label}: {escape(name)}</h3>\n{parts.get(qid, NO_ANSWER)}</div>\n'
                   for label, name, parts in (("A", name_a, parts_a), ("B", name_b, parts_b))]
        out.append(f'<details class="answer"{" open" if i == 0 else ""}>\n<summary>{summary_html(qa or qb)} '
                   f'<span class="diff">(difference {_number(diff)})</span></summary>\n'
                   f'<div class="side-by-side">\n{"".join(columns)}</div>\n</details>\n')
    return Markup("".join(out))
