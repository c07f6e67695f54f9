"""The methodology changelog (docs/CHANGELOG.md) as HTML, for /methodology/changes/.

The file is Markdown of a small kind: headings, lists (an item may go on over indented lines), paragraphs,
and inside them code spans, links and strong text. That subset is rendered here rather than through a
Markdown library the service does not otherwise need; every character of the file is escaped, so the file
can say `<script>` and the page shows it as text.
"""

import hashlib
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path

from django.conf import settings

CHANGELOG_FILE = Path(settings.SITE_FILES_DIR) / "docs" / "CHANGELOG.md"

HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
LIST_ITEM = re.compile(r"^[-*]\s+(.*)$")
# A code span, a link or strong text; whatever lies between them is plain text.
INLINE = re.compile(r"`(?P<code>[^`]+)`|\[(?P<text>[^\]]+)\]\((?P<href>[^)\s]+)\)|\*\*(?P<strong>.+?)\*\*")
# Links the site can follow; a path into the repository (docs/spec/...) is shown as its words only.
WEB_LINK = re.compile(r"^(https?://|/(?!/)|#)")


@dataclass(frozen=True)
class Changelog:
    html: str
    digest: str  # of the file's bytes: a page built from an older file is not served for a newer one


def read_changelog(path: Path | None = None) -> Changelog:
    """The changelog as it is on disk now: read per request, so a release's new entries show at once."""
    text = (path or CHANGELOG_FILE).read_text(encoding="utf-8")
    return Changelog(html=render_markdown(text), digest=hashlib.sha256(text.encode()).hexdigest()[:16])


def render_markdown(text: str) -> str:
    """The subset of Markdown the changelog is written in, as HTML with every character of the text escaped."""
    return "\n".join(render_block(block) for block in blocks(text))


def blocks(text: str) -> list[list[str]]:
    """The file's lines grouped into blocks: a heading alone; a list or a paragraph up to a blank line."""
    found: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            current = flush(found, current)
        elif HEADING.match(line):
            current = flush(found, current)
            found.append([line])
        else:
            current.append(line)
    flush(found, current)
    return found


def flush(found: list[list[str]], current: list[str]) -> list[str]:
    if current:
        found.append(current)
    return []


def render_block(lines: list[str]) -> str:
    heading = HEADING.match(lines[0])
    if heading:
        level, words = len(heading.group(1)), heading.group(2).strip()
        return f'<h{level} id="{slug(words)}">{render_inline(words)}</h{level}>'
    if LIST_ITEM.match(lines[0]):
        return "<ul>\n" + "\n".join(f"<li>{render_inline(item)}</li>" for item in list_items(lines)) + "\n</ul>"
    return f"<p>{render_inline(' '.join(line.strip() for line in lines))}</p>"


def list_items(lines: list[str]) -> list[str]:
    """Each item's words: its first line and the lines that go on from it."""
    items: list[str] = []
    for line in lines:
        item = LIST_ITEM.match(line)
        if item or not items:
            items.append(item.group(1) if item else line.strip())
        else:
            items[-1] += " " + line.strip()
    return items


def render_inline(text: str) -> str:
    parts: list[str] = []
    end = 0
    for match in INLINE.finditer(text):
        parts.append(escape(text[end : match.start()]))
        parts.append(inline_element(match))
        end = match.end()
    parts.append(escape(text[end:]))
    return "".join(parts)


def inline_element(match: re.Match[str]) -> str:
    if match.group("code") is not None:
        return f"<code>{escape(match.group('code'))}</code>"
    if match.group("strong") is not None:
        return f"<strong>{render_inline(match.group('strong'))}</strong>"
    words, href = render_inline(match.group("text")), match.group("href")
    return f'<a href="{escape(href)}">{words}</a>' if WEB_LINK.match(href) else words


def slug(words: str) -> str:
    """A heading's anchor: its letters, digits and hyphens, lower case (a date stays itself)."""
    return re.sub(r"[^a-z0-9-]+", "-", words.lower()).strip("-")
