from fakes.anthropic_server import fake_anthropic  # noqa: F401 - registers the fixture
