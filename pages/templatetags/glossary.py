"""{% term "pending" %}: a term of the glossary, linked to its entry (the glossary page's anchor)."""

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from pages.glossary import TERMS

register = template.Library()


@register.simple_tag
def term(anchor: str, text: str = "") -> SafeString:
    """A link to the glossary's entry for `anchor`, reading `text` (the term itself when empty)."""
    if anchor not in TERMS:
        raise template.TemplateSyntaxError(f"no glossary entry {anchor!r}")
    return format_html('<a class="term" href="{}#{}">{}</a>', reverse("glossary"), anchor, text or TERMS[anchor])
