from django.test import Client


def test_it_documents_the_recorder_beside_the_plugin(db: None, client: Client) -> None:
    page = client.get("/contribute/").content.decode()
    assert "OpenCode plugin" in page
    assert 'id="recorder-heading"' in page
    assert "pragmatikos-record submit --url http://testserver/api/v1/contributions" in page
    assert "pragmatikos-record report --url http://testserver/api/v1/contributions" in page  # the first thing to try
    assert page.index("pragmatikos-record report") < page.index("pragmatikos-record submit")
    for harness in ("Claude Code", "Codex CLI", "aider", "Cline", "Roo Code", "Kilo Code", "Gemini CLI", "Copilot CLI"):
        assert harness in page
    assert "Goose" in page and "Amp" in page
    assert "<script" not in page.split('id="recorder-heading"', 1)[1].split("</section>", 1)[0]
