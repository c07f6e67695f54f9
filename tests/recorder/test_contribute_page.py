from django.test import Client


def test_it_documents_the_recorder_beside_the_plugin(db: None, client: Client) -> None:
    page = client.get("/contribute/").content.decode()
    assert "OpenCode plugin" in page
    assert 'id="recorder-heading"' in page
    assert "pragmatikos-record submit --url http://testserver/api/v1/contributions" in page
    for harness in ("Claude Code", "Codex CLI", "aider"):
        assert harness in page
    assert "<script" not in page.split('id="recorder-heading"', 1)[1].split("</section>", 1)[0]
