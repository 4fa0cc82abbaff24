from fakes.anthropic_server import fake_anthropic  # noqa: F401 - registers the fixture
from fakes.openai_server import fake_openai  # noqa: F401 - registers the fixture
