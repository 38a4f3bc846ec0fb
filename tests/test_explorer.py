"""The explorer page of `argc serve` in a real headless Chromium (Debian's `chromium` and
`chromium-driver`): typed theories are drawn with one node per argument and its grounded
label; normative and KG worlds render; the page loads nothing from elsewhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from argc.cli import main

pytest.importorskip("fastapi")
webdriver = pytest.importorskip("selenium.webdriver")
if shutil.which("chromedriver") is None or shutil.which("chromium") is None:
    pytest.skip("needs chromium and chromium-driver", allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def url():
    from argc.serve import running

    with running() as (address, _):
        yield address


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium")
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def solve(browser, url, text: str, language: str = "arg", **settings: str) -> None:
    browser.get(url)
    Select(browser.find_element(By.ID, "language")).select_by_value(language)
    for field, value in settings.items():
        Select(browser.find_element(By.ID, field)).select_by_value(value)
    area = browser.find_element(By.ID, "theory")
    area.clear()
    area.send_keys(text)
    browser.find_element(By.ID, "solve").click()


def grounded_labels(capsys, path: Path, *flags: str) -> dict[str, str]:
    """Each argument's grounded label from `argc check --json --graph`."""
    main(["check", "--json", "--graph", "--semantics", "grounded", *flags, str(path)])
    record = json.loads(capsys.readouterr().out)
    inside = set(record["extensions"][0])
    labels = {name: "in" if name in inside else "undec" for name in record["arguments"]}
    for attacker, attacked in record["defeats"]:
        if attacker in inside:
            labels[attacked] = "out"
    return labels


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        ("modgil_prakken_tweety.arg", {}),
        ("modgil_prakken_snores.arg", {"semantics": "preferred"}),
        ("arggym_c1_status_query.arg", {"ordering": "weakest-link", "set": "democratic"}),
    ],
)
def test_each_argument_is_one_node_with_its_grounded_label(browser, url, capsys, name, settings):
    path = ROOT / "examples" / name
    flags = [f"--{key}={value}" for key, value in settings.items() if key != "semantics"]
    expected = grounded_labels(capsys, path, *flags)
    solve(browser, url, path.read_text("utf-8"), **settings)
    WebDriverWait(browser, 60).until(
        lambda b: (
            b.find_elements(By.CSS_SELECTOR, "g[data-argument]")
            or b.find_element(By.ID, "message").text.strip() not in ("", "solving…")
        )
    )
    nodes = browser.find_elements(By.CSS_SELECTOR, "g[data-argument]")
    drawn = {
        node.get_attribute("data-argument"): node.get_attribute("data-status") for node in nodes
    }
    assert len(nodes) == len(drawn) == len(expected)
    assert drawn == expected
    claims = browser.find_elements(By.CSS_SELECTOR, "tr[data-claim]")
    assert claims and all(row.get_attribute("data-claim") for row in claims)


def test_clicking_a_node_shows_its_attackers_and_explanation(browser, url):
    path = ROOT / "examples" / "modgil_prakken_tweety.arg"
    solve(browser, url, path.read_text("utf-8"))
    wait = WebDriverWait(browser, 60)
    node = wait.until(
        lambda b: b.find_element(By.CSS_SELECTOR, 'g[data-argument="d1(s1(penguin))"]')
    )
    assert node.get_attribute("data-status") == "out"
    node.click()
    explanation = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#details pre.explanation"))
    wait.until(lambda b: "flies is overruled" in explanation.text)
    assert (
        "d2(penguin) (rebut on d1(s1(penguin)), defeats)"
        in browser.find_element(By.ID, "details").text
    )


def test_a_syntax_error_is_shown_with_its_line(browser, url):
    solve(browser, url, "[premise: a]\n[strict s1: a -> ")
    message = WebDriverWait(browser, 60).until(
        lambda b: (
            b.find_element(By.ID, "message").text.strip() not in ("", "solving…")
            and b.find_element(By.ID, "message")
        )
    )
    assert "<text>:2:" in message.text
    assert not browser.find_elements(By.CSS_SELECTOR, "g[data-argument]")


def test_normative_and_kg_worlds_render(browser, url):
    norm = (ROOT / "examples" / "norms" / "archive_entry.norm").read_text("utf-8")
    solve(browser, url, norm, "norm")
    wait = WebDriverWait(browser, 60)
    heading = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#world h2"))
    assert heading.text == "enter_archive(alice): permitted"
    rules = {
        row.get_attribute("data-rule")
        for row in browser.find_elements(By.CSS_SELECTOR, "tr[data-rule]")
    }
    assert {"r1", "r2"} <= rules
    drawn = {
        node.get_attribute("data-rule"): (
            node.get_attribute("data-status"),
            node.get_attribute("data-role"),
        )
        for node in browser.find_elements(By.CSS_SELECTOR, "svg.rules g[data-rule]")
    }
    assert drawn == {"r1": ("out", "defeated"), "r2": ("in", "decisive")}
    arrows = browser.find_elements(By.CSS_SELECTOR, "svg.rules path.attack")
    assert len(arrows) == 2
    assert ["failed" in arrow.get_attribute("class") for arrow in arrows].count(True) == 1
    world = (ROOT / "examples" / "kg" / "worked_example.kg").read_text("utf-8")
    solve(browser, url, world, "kg")
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "tr[data-time]"))
    times = [
        row.get_attribute("data-time")
        for row in browser.find_elements(By.CSS_SELECTOR, "tr[data-time]")
    ]
    assert times[:3] == ["0", "1", "2"]
    generations = {
        node.get_attribute("data-person"): node.find_element(By.TAG_NAME, "rect").get_attribute("y")
        for node in browser.find_elements(By.CSS_SELECTOR, "svg.family g[data-person]")
    }
    assert len(generations) == 9
    # george_brown is dan_brown's father, dan_brown frank_brown's: three generations down
    tops = [float(generations[name]) for name in ("george_brown", "dan_brown", "frank_brown")]
    assert tops == sorted(tops) and len(set(tops)) == 3
    shown = browser.find_element(By.ID, "world").text
    assert "red_ball 5" in shown and "cousin frank_brown ian_brown" in shown


def test_the_page_loads_nothing_from_elsewhere(url):
    import httpx

    page = httpx.get(url).text
    sources = [part.split('"')[1] for part in page.split("src=")[1:]]
    sources += [part.split('"')[1] for part in page.split("href=")[1:]]
    assert sources and all(source.startswith("/static/") for source in sources)
    for source in sources:
        assert httpx.get(url + source).status_code == 200
