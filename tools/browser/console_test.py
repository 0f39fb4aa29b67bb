"""The admin console tested as a person uses it, in Debian's Chromium driven by Selenium.

Signs in, opens every page, creates an asset and an account, mints into the account, watches
the transfer appear in the live event feed (a second tab), places and posts a hold, sees a
refused transfer's problem shown, adds a webhook endpoint and an API key, redelivers the
endpoint's failed attempt, visits every rail panel (on the local chain's: a chain's blocks and
transactions, a grant through the panel's form, a refused grant, pause and resume), and saves screenshots of each page on a
desktop and on a phone viewport.

Fails on any browser console error (SEVERE) and any failed request (HTTP status >= 400 or a
network failure), except the refusals the test provokes on purpose.

Usage: console_test.py BASE_URL EMAIL SCREENSHOT_DIR   (the password on stdin)
Environment: CHROMIUM (default /usr/bin/chromium), CHROMEDRIVER (default /usr/bin/chromedriver).
"""

import base64
import json
import os
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

DESKTOP = (1366, 900)
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
PAGES = ["overview", "assets", "accounts", "transfers", "events", "webhooks", "users", "plugins"]


class ConsoleTest:
    def __init__(self, base, email, password, shots):
        self.base = base.rstrip("/")
        self.email = email
        self.password = password
        self.shots = shots
        self.problems = []
        # (method, url fragment, status) of requests that are meant to fail.
        self.expected_failures = []
        # How many of those were seen, so a step that provokes one can check that it did.
        self.seen_expected = 0
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for argument in [
            "--headless=new",
            "--no-sandbox",  # CI runs as root, where Chromium's sandbox cannot start
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--lang=en-GB",
            f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
        ]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(30)
        self.wait = WebDriverWait(self.driver, 15)
        self.driver.execute_cdp_cmd("Network.enable", {})

    # --- Checks that run after every step.

    def collect_logs(self, step):
        """Browser console errors and failed requests since the last call, as problems."""
        for entry in self.driver.get_log("browser"):
            if entry["level"] != "SEVERE":
                continue
            message = entry["message"]
            if any(f"status of {status}" in message and fragment in message for _, fragment, status in self.expected_failures):
                continue
            self.problems.append(f"{step}: console error: {message}")
        requests = {}
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if method == "Network.requestWillBeSent":
                requests[params["requestId"]] = (params["request"]["method"], params["request"]["url"])
            elif method == "Network.responseReceived":
                status = params["response"]["status"]
                url = params["response"]["url"]
                verb = requests.get(params["requestId"], ("?", url))[0]
                if status >= 400 and self.expected(verb, url, status):
                    self.seen_expected += 1
                elif status >= 400:
                    self.problems.append(f"{step}: {verb} {url} answered {status}")
            elif method == "Network.loadingFailed":
                # Streams and fetches cut short by leaving a page are cancellations, not failures.
                if params.get("canceled") or params.get("errorText") == "net::ERR_ABORTED":
                    continue
                verb, url = requests.get(params["requestId"], ("?", "?"))
                self.problems.append(f"{step}: {verb} {url} failed: {params.get('errorText')}")

    def expected(self, verb, url, status):
        return any(verb == v and fragment in url and status == s for v, fragment, s in self.expected_failures)

    def step(self, name):
        print(f"browser test: {name}", file=sys.stderr)
        self.collect_logs(name)

    def expect_failures_seen(self, name):
        """After a step that provokes a refusal on purpose: it happened (the check is not vacuous)."""
        if self.seen_expected == 0:
            self.problems.append(f"{name}: the refusal it provokes was not seen")
        self.seen_expected = 0
        self.expected_failures.clear()

    # --- Helpers.

    def api(self, method, path, body=None, token=None):
        """A call of the hub's API outside the browser (setting up users), JSON in and out."""
        request = urllib.request.Request(self.base + path, data=None if body is None else json.dumps(body).encode(), method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=30) as response:
            return json.loads(response.read() or b"null")

    def open(self, path):
        self.driver.get(self.base + path)
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")

    def find(self, selector):
        return self.wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, selector)))

    def visible(self, selector):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, selector)))

    def wait_text(self, selector, text, timeout=15):
        WebDriverWait(self.driver, timeout).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, selector), text))

    def fill(self, form, values):
        for name, value in values.items():
            field = self.find(f"{form} [name='{name}']")
            if field.tag_name == "select":
                Select(field).select_by_value(value)
            else:
                field.clear()
                field.send_keys(value)

    def submit(self, form):
        self.find(f"{form} button[type='submit']").click()

    def confirm(self, expect_text=None):
        """Accepts the confirmation dialog that every money-moving action opens."""
        self.visible("dialog#confirm[open]")
        if expect_text:
            self.wait_text("#confirm-text", expect_text)
        self.find("#confirm-ok").click()
        self.wait.until(lambda d: not d.find_element(By.CSS_SELECTOR, "dialog#confirm").get_attribute("open"))

    def settle(self):
        """Waits until the page's requests are done (no fetch in flight for a moment)."""
        time.sleep(0.6)

    def screenshot(self, name):
        """A full-page PNG (Chromium's own capture beyond the viewport), from the top of the page."""
        self.driver.execute_script("window.scrollTo(0, 0)")
        metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 4000), "scale": 1},
            },
        )
        path = os.path.join(self.shots, f"{name}.png")
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))

    # --- The local chain's explorer and its declarative actions.

    # EIP-55's own example address, and the same with one letter's case flipped (a bad checksum:
    # well-formed enough for the console, refused by the rail).
    RECIPIENT = "0x52908400098527886E0F7030069857D2E4169EE7"
    BAD_CHECKSUM = "0x52908400098527886e0F7030069857D2E4169EE7"

    def refresh_until(self, selector, text, timeout=25):
        """Clicks the detail's Refresh until `selector` shows `text` (a block seals every 2 s)."""
        deadline = time.monotonic() + timeout
        while True:
            if text in self.find(selector).text:
                return
            if time.monotonic() > deadline:
                raise TimeoutException(f"{selector} never showed {text!r}")
            self.find("#rail-detail-refresh").click()
            time.sleep(1)

    def rows(self, selector):
        return len(self.driver.find_elements(By.CSS_SELECTOR, f"{selector} table tbody tr"))

    def local_chain_explorer(self):
        """A chain's detail: its blocks and transactions, a grant through the form (confirmed,
        then the grant sealed and the balance shown), a refused grant (the rail's problem shown,
        nothing changed), pause then resume (the status badge follows)."""
        driver = self.driver
        self.wait_text("#rail-lists", "Browser Fest")
        driver.find_element(By.CSS_SELECTOR, "#list-chains table tbody tr").click()
        self.visible("#rail-detail")
        self.wait_text("#rail-detail-facts", "Fest token")
        self.wait_text("#rail-detail-facts", "active")
        self.wait.until(lambda d: self.rows("#related-blocks") > 0)
        self.wait_text("#related-contracts", "Nothing yet.")
        self.step("local chain: a chain's detail with its blocks")

        # A grant of 5.00 FEST through the declared form.
        self.fill("#action-grant", {"to": self.RECIPIENT, "amount": "5.00"})
        self.submit("#action-grant")
        self.wait_text("#confirm-facts", "5.00")
        self.confirm("Grant this amount?")
        self.wait_text("#main .notice", "accepted")
        self.refresh_until("#related-accounts", self.RECIPIENT)
        self.wait_text("#related-accounts", "5.00")
        self.wait_text("#related-transactions", "success")
        transactions = self.rows("#related-transactions")
        driver.find_element(By.CSS_SELECTOR, "#related-transactions table tbody tr").click()
        self.visible("#rail-subdetail")
        self.wait_text("#rail-subdetail-json", self.RECIPIENT)
        self.settle()
        self.screenshot("desktop-rail-localchain-detail")
        self.step("local chain: a grant through the form")

        # A grant to a badly checksummed address: the rail refuses it, the problem is shown and the
        # field marked, and nothing was queued.
        self.expected_failures.append(("POST", "/grants", 422))
        self.fill("#action-grant", {"to": self.BAD_CHECKSUM, "amount": "1"})
        self.submit("#action-grant")
        self.confirm("Grant this amount?")
        self.visible("#problem")
        self.wait_text("#problem .problem-detail", "EIP-55")
        if self.find("#action-grant [name='to']").get_attribute("aria-invalid") != "true":
            self.problems.append("refused grant: the field the problem names is not marked")
        self.settle()
        self.screenshot("desktop-rail-localchain-refused")
        self.step("local chain: a refused grant")
        self.expect_failures_seen("refused grant")
        time.sleep(2.5)  # a block interval: a queued grant would have sealed by now
        self.find("#rail-detail-refresh").click()
        self.settle()
        if self.rows("#related-transactions") != transactions:
            self.problems.append("refused grant: the chain's transactions changed")
        if "0x52908400098527886e0F7030069857D2E4169EE7" in self.find("#related-accounts").text:
            self.problems.append("refused grant: an account appeared")
        self.step("local chain: the refusal changed nothing")

        # Pause, then resume: only the action the status allows is offered.
        if driver.find_elements(By.CSS_SELECTOR, "#rail-actions [data-action='resume']"):
            self.problems.append("local chain: resume offered on an active chain")
        self.find("#rail-actions [data-action='pause']").click()
        self.confirm("Pause this chain?")
        self.wait_text("#rail-detail-facts .badge", "paused")
        self.wait_text("#list-chains", "paused")
        if driver.find_elements(By.CSS_SELECTOR, "#action-grant"):
            self.problems.append("local chain: the grant form offered on a paused chain")
        self.settle()
        self.screenshot("desktop-rail-localchain-paused")
        self.find("#rail-actions [data-action='resume']").click()
        self.confirm("Resume this chain?")
        self.wait_text("#rail-detail-facts .badge", "active")
        self.find("#action-grant")
        self.step("local chain: pause and resume")

    # --- The scenario.

    def run(self):
        driver = self.driver
        # Not signed in: any page sends the browser to the sign-in page, which comes back after.
        self.open("/admin/transfers")
        self.wait.until(EC.url_contains("/admin/login?next="))
        self.find("#login-form")
        self.screenshot("desktop-login")
        self.fill("#login-form", {"email": self.email, "password": self.password})
        self.submit("#login-form")
        self.wait.until(EC.url_contains("/admin/transfers"))
        self.step("sign in")

        # Every page, empty.
        for page in PAGES:
            self.open(f"/admin/{page}")
            self.find("#main")
            self.settle()
            self.step(f"open {page}")

        # An asset.
        self.open("/admin/assets")
        self.fill("#asset-form", {"code": "FEST-42", "scale": "2", "name": "Festival tokens"})
        self.submit("#asset-form")
        self.confirm("Create this asset?")
        self.wait_text("#assets-table", "FEST-42")
        # Rails create assets of their own (the EVM rail's chain has one): take FEST-42's row.
        issuance_link = driver.find_element(
            By.XPATH, "//*[@id='assets-table']//tr[contains(., 'FEST-42')]//a[contains(@href, 'account_id=')]"
        ).get_attribute("href")
        issuance = issuance_link.split("account_id=")[1]
        self.settle()
        self.screenshot("desktop-assets")
        self.step("create an asset")

        # An account of the signed-in admin, which may not go negative.
        self.open("/admin/accounts")
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#account-form select[name='asset'] option")) > 0)
        self.fill("#account-form", {"asset": "FEST-42"})
        self.submit("#account-form")
        self.confirm("Open this account?")
        self.wait_text("#accounts-table", "FEST-42")
        account_link = driver.find_element(
            By.XPATH, "//*[@id='accounts-table']//tr[contains(., 'FEST-42')]//a[contains(@href, 'account_id=')]"
        ).get_attribute("href")
        account = account_link.split("account_id=")[1]
        self.step("open an account")

        # The live feed in a second tab (window.open shares this tab's session).
        console_tab = driver.current_window_handle
        driver.execute_script("window.open('/admin/events', 'feed')")
        feed_tab = [handle for handle in driver.window_handles if handle != console_tab][0]
        driver.switch_to.window(feed_tab)
        self.wait_text("#events-status", "live")
        self.wait_text("#events-table", "ledger.account.created")
        self.step("open the live feed")

        # A transfer: mint 1,250.00 FEST-42 into the account.
        driver.switch_to.window(console_tab)
        self.open(f"/admin/transfers?account_id={account}")
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#transfer-form select[name='asset'] option")) > 0)
        self.fill(
            "#transfer-form",
            {"debit_account_id": issuance, "credit_account_id": account, "asset": "FEST-42", "amount": "1250.00", "action": "post"},
        )
        self.submit("#transfer-form")
        self.confirm("Move this money?")
        self.wait_text("#transfer-facts", "1,250.00 FEST-42")
        self.wait_text("#transfers-table", "1,250.00 FEST-42")
        transfer_id = self.find("#transfer-facts dd .mono").text
        self.step("make a transfer")

        # It appears in the live feed without reloading.
        driver.switch_to.window(feed_tab)
        self.wait_text("#events-table tbody tr:first-child", "ledger.transfer.posted")
        self.wait_text("#events-table tbody tr:first-child", transfer_id)
        self.screenshot("desktop-events")
        self.step("watch the transfer in the live feed")
        driver.close()
        driver.switch_to.window(console_tab)

        # A hold of 20.00 back to the issuance account, then posted from its detail view.
        self.fill(
            "#transfer-form",
            {"debit_account_id": account, "credit_account_id": issuance, "asset": "FEST-42", "amount": "20", "action": "hold"},
        )
        self.submit("#transfer-form")
        self.confirm("Reserve this amount?")
        self.wait_text("#transfer-actions", "Post hold")
        self.find("#transfer-actions button").click()
        self.confirm("Post this hold?")
        self.wait_text("#transfers-table", "post_pending")
        self.step("place and post a hold")

        # A transfer the ledger refuses: its problem (title and detail) is shown.
        self.expected_failures.append(("POST", "/v1/ledger/transfers", 422))
        self.fill(
            "#transfer-form",
            {"debit_account_id": account, "credit_account_id": issuance, "asset": "FEST-42", "amount": "999999", "action": "post"},
        )
        self.submit("#transfer-form")
        self.confirm("Move this money?")
        self.visible("#problem")
        self.wait_text("#problem .problem-title", "Unprocessable")
        detail = self.find("#problem .problem-detail").text
        if not detail:
            self.problems.append("refused transfer: the problem's detail is not shown")
        self.settle()
        self.screenshot("desktop-transfer-refused")
        self.step("see a refused transfer's problem")
        self.expect_failures_seen("refused transfer")

        self.open(f"/admin/transfers?account_id={account}")
        self.wait_text("#transfers-table", "1,250.00 FEST-42")
        self.find("#transfers-table tbody tr").click()
        self.visible("#transfer-detail")
        self.settle()
        self.screenshot("desktop-transfers")
        self.step("transfer detail")

        self.open(f"/admin/accounts?owner_kind=user")
        self.wait_text("#accounts-table", "1,230.00 FEST-42")
        self.settle()
        self.screenshot("desktop-accounts")
        self.step("balances")

        # A webhook endpoint for every event, on a closed loopback port (every attempt fails).
        self.open("/admin/webhooks")
        self.fill("#webhook-form", {"url": "http://127.0.0.1:9/hooks", "event_types": "", "description": "closed port"})
        self.submit("#webhook-form")
        self.wait_text("#webhook-secret", "whsec_")
        self.wait_text("#webhooks-table", "127.0.0.1:9")
        self.step("add a webhook endpoint")

        # An API key (its creation is an event the endpoint receives).
        self.open("/admin/users")
        self.wait_text("#users-table", self.email)
        self.fill("#key-form", {"name": "reporting"})
        self.submit("#key-form")
        self.wait_text("#key-secret", "shown once")
        self.wait_text("#keys-table", "reporting")
        self.settle()
        self.screenshot("desktop-users")
        self.step("users and keys")

        # The endpoint's failed attempt at that event, redelivered by hand.
        self.open("/admin/webhooks")
        self.wait_text("#webhooks-table", "127.0.0.1:9")
        deadline = time.monotonic() + 20
        while True:
            self.find("#webhooks-table tbody button").click()
            self.visible("#deliveries")
            time.sleep(1)
            if driver.find_elements(By.CSS_SELECTOR, "#deliveries-table tbody tr"):
                break
            if time.monotonic() > deadline:
                raise TimeoutException("the dispatcher recorded no delivery attempt within 20 s")
        self.find("#deliveries-table tbody button").click()
        self.confirm("Send this event to the endpoint again now?")
        self.wait_text("#deliveries-table", "(manual)")
        self.settle()
        self.screenshot("desktop-webhooks")
        self.step("webhook deliveries and redelivery")

        self.open("/admin/plugins")
        self.find("#plugins-table")
        self.settle()
        self.screenshot("desktop-plugins")
        self.step("plugins")

        # Every rail that runs with a panel: its generic page draws the panel's summary and lists.
        # The BLE sessions rail gets a session first (opened through its API with the console's own
        # token, as a payee's phone would), so its list has a row and its detail view opens.
        rails = [link.get_attribute("href") for link in driver.find_elements(By.CSS_SELECTOR, "#nav a[href*='/admin/rails/']")]
        for href in rails:
            rail = href.rsplit("/", 1)[1]
            if rail == "ble-sessions":
                status = driver.execute_async_script(
                    """
                    const done = arguments[arguments.length - 1];
                    fetch("/v1/rails/ble-sessions/sessions", {
                      method: "POST",
                      headers: {"Content-Type": "application/json",
                                "Authorization": "Bearer " + sessionStorage.getItem("hubd.access_token")},
                      body: JSON.stringify({amount: "450", asset: "FEST-42", split: {mode: "equal", payers: 2}}),
                    }).then((r) => done(r.status), () => done(0));
                    """
                )
                if status != 201:
                    self.problems.append(f"rail panel ble-sessions: opening a session answered {status}")
            if rail == "localchain":
                status = driver.execute_async_script(
                    """
                    const done = arguments[arguments.length - 1];
                    fetch("/v1/rails/localchain/chains", {
                      method: "POST",
                      headers: {"Content-Type": "application/json",
                                "Authorization": "Bearer " + sessionStorage.getItem("hubd.access_token")},
                      body: JSON.stringify({chain_id: 424242, name: "Browser Fest", currency_name: "Fest token",
                                            symbol: "FEST", decimals: 2}),
                    }).then((r) => done(r.status), () => done(0));
                    """
                )
                if status != 201:
                    self.problems.append(f"rail panel localchain: creating a chain answered {status}")
            if rail == "evm":
                # An item minted on the hub's own chain with an image uploaded first, as a seller's
                # app does it; its detail view then shows the image read with the console's token.
                driver.set_script_timeout(90)
                outcome = driver.execute_async_script(
                    """
                    const done = arguments[arguments.length - 1];
                    const headers = {"Authorization": "Bearer " + sessionStorage.getItem("hubd.access_token")};
                    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
                    (async () => {
                      for (let i = 0; i < 120; i++) {
                        const chains = await (await fetch("/v1/rails/evm/chains", {headers})).json();
                        if (chains.data?.[0]?.status === "ready") break;
                        await pause(500);
                      }
                      const png = Uint8Array.from(atob(
                        "iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAIAAADYYG7QAAAAhUlEQVR42u3YURGAMAyD4ShBHSKQgxzkIGEK6Da4lfTuv4uA761NdF+HVQQIECBb0LafcZJAXcdHmVZrZk1aTZllKU0zaFKmZsSkZE3XVAq0SBOb9IsmMAF6B0rQPJkAAQIECFBNEMe1IsjuY+TJL9rLHJurY7d3XD9M9yHHBY3RExCgyTT/lIzsxqnoUgAAAABJRU5ErkJggg=="
                      ), (c) => c.charCodeAt(0));
                      const uploaded = await fetch("/v1/rails/evm/images", {
                        method: "POST", headers: {...headers, "Content-Type": "image/png"}, body: png});
                      if (uploaded.status !== 201 && uploaded.status !== 200) return "image upload answered " + uploaded.status;
                      const image = (await uploaded.json()).id;
                      const minted = await fetch("/v1/rails/evm/items", {
                        method: "POST", headers: {...headers, "Content-Type": "application/json"},
                        body: JSON.stringify({title: "Browser vase", category: "ceramics", images: [image]})});
                      if (minted.status !== 202) return "mint answered " + minted.status;
                      for (let i = 0; i < 120; i++) {
                        const items = await (await fetch("/v1/rails/evm/items", {headers})).json();
                        if ((items.data ?? []).some((item) => item.title === "Browser vase")) return "ok";
                        await pause(500);
                      }
                      return "the minted item was never listed";
                    })().then(done, (error) => done(String(error)));
                    """
                )
                if outcome != "ok":
                    self.problems.append(f"rail panel evm: {outcome}")
            self.open(f"/admin/rails/{rail}")
            self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#rail-summary").text.strip() != "")
            self.settle()
            self.screenshot(f"desktop-rail-{rail}")
            if rail == "ble-sessions":
                self.wait_text("#rail-lists", "4.50")
                driver.find_element(By.CSS_SELECTOR, "#rail-lists table tbody tr").click()
                self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#rail-detail").is_displayed())
                self.wait_text("#rail-detail-facts", "advertising")
                self.settle()
                self.screenshot(f"desktop-rail-{rail}-detail")
            if rail == "localchain":
                self.local_chain_explorer()
            if rail == "evm":
                self.wait_text("#list-items", "Browser vase")
                driver.find_element(By.CSS_SELECTOR, "#list-items table tbody tr").click()
                self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#rail-detail").is_displayed())
                self.wait_text("#rail-detail-facts", "Browser vase")
                self.wait.until(
                    lambda d: d.execute_script(
                        "const img = document.querySelector('#rail-detail-facts img.thumbnail');"
                        "return img !== null && img.complete && img.naturalWidth === 48 && img.src.startsWith('blob:');"
                    )
                )
                self.settle()
                self.screenshot(f"desktop-rail-{rail}-detail")
            self.step(f"rail panel {rail}")
        print(f"browser test: {len(rails)} rail panels", file=sys.stderr)

        # The overview's charts now have a transfer to draw.
        self.open("/admin/overview")
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#volume-charts svg rect")) > 0)
        self.wait_text("#totals", "FEST-42")
        self.settle()
        self.screenshot("desktop-overview")
        self.step("overview charts")

        # The same pages on a phone.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        for page, ready in [
            ("overview", "#volume-charts svg rect"),
            ("accounts", "#accounts-table tbody tr"),
            (f"transfers?account_id={account}", "#transfers-table tbody tr"),
            ("events", "#events-table tbody tr"),
        ]:
            self.open(f"/admin/{page}")
            self.find(ready)
            self.settle()
            self.screenshot("phone-" + page.split("?")[0])
            self.step(f"phone {page.split('?')[0]}")
        self.find("#menu-toggle").click()
        self.visible("#nav.open")
        self.screenshot("phone-menu")
        self.step("phone menu")
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # An access token that no longer works (as after its 15 minutes): the page's first call is
        # refused once, the console exchanges the refresh token and carries on.
        self.expected_failures.append(("GET", "/v1/", 401))
        driver.execute_script("sessionStorage.setItem('hubd.access_token', 'expired-token')")
        self.open("/admin/accounts")
        self.wait_text("#accounts-table", "1,230.00 FEST-42")
        token = driver.execute_script("return sessionStorage.getItem('hubd.access_token')")
        if token == "expired-token":
            self.problems.append("refresh: the console kept the refused access token")
        self.settle()
        self.step("refresh an expired session")
        self.expect_failures_seen("expired session")

        # Signing out ends the session: the next page asks to sign in again.
        self.open("/admin/overview")
        self.find("#sign-out").click()
        self.wait.until(EC.url_contains("/admin/login"))
        self.open("/admin/assets")
        self.wait.until(EC.url_contains("/admin/login?next="))
        self.step("sign out")

        # Each role sees only what it may use: an organiser and a member sign in, open every page
        # their role has (none may answer 403: collect_logs fails on any), find no link to the
        # others, and are sent on when they open one by its address.
        admin_token = self.api("POST", "/v1/auth/login", {"email": self.email, "password": self.password})["access_token"]
        for role in ("organiser", "member"):
            email, password = f"{role}-{int(time.time() * 1000)}@example.test", "a long enough password"
            self.api("POST", "/v1/users", {"email": email, "display_name": role.title(), "roles": [role], "password": password}, admin_token)
            self.open("/admin/login")
            self.fill("#login-form", {"email": email, "password": password})
            self.submit("#login-form")
            self.wait.until(EC.url_contains("/admin/overview"))
            allowed = [page for page in PAGES if page not in ("events", "webhooks") and (page != "users" or role == "organiser")]
            for page in allowed:
                self.open(f"/admin/{page}")
                self.find("#main")
                self.settle()
                self.step(f"{role}: open {page}")
            links = {link.get_attribute("href").split("/admin/")[1] for link in driver.find_elements(By.CSS_SELECTOR, "#nav a[href*='/admin/']")}
            for page in PAGES:
                if (page in allowed) != (page in links):
                    self.problems.append(f"{role}: the menu {'lacks' if page in allowed else 'offers'} {page}")
            self.open("/admin/webhooks")
            self.wait.until(EC.url_contains("/admin/overview"))
            self.settle()
            self.screenshot(f"desktop-{role}-overview")
            self.open("/admin/accounts")
            self.settle()
            self.screenshot(f"desktop-{role}-accounts")
            self.step(f"{role}: pages of the role only")
            self.find("#sign-out").click()
            self.wait.until(EC.url_contains("/admin/login"))


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    base, email, shots = argv[1], argv[2], argv[3]
    password = sys.stdin.readline().rstrip("\n")
    os.makedirs(shots, exist_ok=True)
    test = ConsoleTest(base, email, password, shots)
    try:
        test.run()
    except TimeoutException as error:
        test.collect_logs("timeout")
        test.screenshot("failure")
        test.problems.append(f"timed out waiting at {test.driver.current_url}: {error.msg or 'no detail'}")
    except Exception as error:  # the scenario's own failure, reported with the logs
        test.collect_logs("error")
        test.screenshot("failure")
        test.problems.append(f"{type(error).__name__} at {test.driver.current_url}: {error}")
    finally:
        test.driver.quit()
    shots_taken = sorted(name for name in os.listdir(shots) if name.endswith(".png"))
    print(f"browser test: {len(shots_taken)} screenshots in {shots}", file=sys.stderr)
    if test.problems:
        for problem in test.problems:
            print(f"browser test: FAILED: {problem}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
