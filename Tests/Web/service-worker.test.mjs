// The service worker keeps every file of the page, so that the page opens
// whole with the server away: its list is the page's folder, no more, no less.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const publicFolder = new URL("../../Public/", import.meta.url).pathname;

function files(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(folder, entry.name)) : [join(folder, entry.name)]);
}

test("the worker keeps every file of the page", () => {
  const worker = readFileSync(join(publicFolder, "service-worker.js"), "utf8");
  const listed = JSON.parse(worker.match(/const pageFiles = (\[[^\]]*\]);/)[1].replace(/\s+/g, " "));
  const page = files(publicFolder).map((path) => "/" + relative(publicFolder, path))
    .filter((path) => path !== "/service-worker.js" && path !== "/index.html");
  assert.deepEqual([...listed].sort(), ["/", ...page].sort());
});
