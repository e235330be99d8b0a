#!/usr/bin/env node
// Validates JSON files against a JSON Schema with ajv, the validator that
// stands beside python3-jsonschema in meshgen's tests, so that a schema in
// schemas/ means the same to two independent implementations. It knows
// nothing of meshgen: it reads a schema and JSON files and says, per file,
// whether the file satisfies the schema.
//
//   node tools/npm/validate.js SCHEMA.json FILE.json...
//
// One line per file, in the order given: "FILE: valid", or "FILE: invalid:"
// followed by the first errors as "at <JSON pointer>: <message>". Exit
// status: 0 when every file is valid, 1 when one is not, 2 for a usage
// error, a file that is not JSON, or a schema ajv refuses (one that breaks
// the draft's meta-schema or ajv's strict mode, below).
// docs/reference.md §8 ("The schemas") documents this command.
"use strict";

const fs = require("fs");

// The drafts this tool can read, by the schema's "$schema". Each needs
// its own ajv class; add a line (and the package, if ajv has no class
// for it) when a schema of another draft is to be validated.
// Draft 4 is the draft of the SARIF 2.1.0 schema (ajv-draft-04).
const DRAFT_04 = "http://json-schema.org/draft-04/schema#";
const DRAFTS = {
    "https://json-schema.org/draft/2020-12/schema": () => require("ajv/dist/2020").default,
    [DRAFT_04]: () => require("ajv-draft-04").default,
};

// How many errors of one file are printed; the first usually says it all.
const MAX_ERRORS = 3;

function readJson(path) {
    return JSON.parse(fs.readFileSync(path, "utf8"));
}

function main(argv) {
    if (argv.length < 2) {
        process.stderr.write("usage: node validate.js SCHEMA.json FILE.json...\n");
        return 2;
    }
    const [schemaPath, ...files] = argv;
    let validate;
    try {
        const schema = readJson(schemaPath);
        const draft = DRAFTS[schema.$schema];
        if (!draft) {
            process.stderr.write(`${schemaPath}: "$schema" is ${JSON.stringify(schema.$schema)}; ` +
                                 `this tool reads ${Object.keys(DRAFTS).join(", ")}\n`);
            return 2;
        }
        const Ajv = draft();
        // Strict, so a misspelt keyword or a keyword on the wrong type is an
        // error, but without strictRequired: that rule refuses the standard
        // idiom oneOf [{required: [a]}, {required: [b]}], whose properties are
        // defined beside the oneOf rather than inside each branch.
        // The SARIF schema's language pattern, ^[a-zA-Z]{2}|^...]?$, is no
        // valid Unicode-mode regular expression (a lone "]"): draft 4
        // schemas are read with ECMAScript's non-Unicode syntax, as the
        // drafts of their time were.
        const ajv = new Ajv({allErrors: true, strict: true, strictRequired: false,
                             unicodeRegExp: schema.$schema !== DRAFT_04});
        // "format" is checked, not ignored: uri, date-time and the like
        // (ajv-formats), which the SARIF schema uses.
        require("ajv-formats").default(ajv);
        validate = ajv.compile(schema);
    } catch (e) {
        process.stderr.write(`${schemaPath}: ${e.message}\n`);
        return 2;
    }
    let status = 0;
    for (const file of files) {
        let data;
        try {
            data = readJson(file);
        } catch (e) {
            process.stdout.write(`${file}: error: ${e.message}\n`);
            status = 2;
            continue;
        }
        if (validate(data)) {
            process.stdout.write(`${file}: valid\n`);
            continue;
        }
        const errors = validate.errors.slice(0, MAX_ERRORS)
                           .map((e) => `at ${e.instancePath || "/"}: ${e.message}`);
        process.stdout.write(`${file}: invalid: ${errors.join("; ")}\n`);
        status = Math.max(status, 1);
    }
    return status;
}

process.exitCode = main(process.argv.slice(2));
