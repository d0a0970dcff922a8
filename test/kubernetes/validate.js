// Validates Kubernetes objects offline against their OpenAPI schemas: the core and apps kinds
// with kubernetes-models, the ServiceMonitor and PrometheusRule with
// @kubernetes-models/prometheus-operator (both
// run validators generated from the schemas), the Multus NetworkAttachmentDefinition with ajv and
// the openAPIV3Schema of its CRD (no model package exists for it).
// Unknown fields, which the schemas allow and the API server refuses, are reported from the
// packages' type declarations (fields.js).
// Input on stdin: a JSON array of {source, object}. Output: one line per object; exit 1 if any
// object is invalid or of a kind without a validator.
"use strict";

const fs = require("fs");
const Ajv = require("ajv");
const fields = require("./fields.js");

// apiVersion/kind -> the model's module
const models = {
  "v1/Namespace": "kubernetes-models/v1/Namespace",
  "v1/Service": "kubernetes-models/v1/Service",
  "v1/ConfigMap": "kubernetes-models/v1/ConfigMap",
  "apps/v1/DaemonSet": "kubernetes-models/apps/v1/DaemonSet",
  "monitoring.coreos.com/v1/ServiceMonitor":
    "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor",
  "monitoring.coreos.com/v1/PrometheusRule":
    "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule",
};
const objectMeta = "@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta";

// The CRD's schema as Multus ships it (deployments/multus-daemonset.yml,
// network-attachment-definitions.k8s.cni.cncf.io, version v1).
// additionalProperties: false where the CRD declares every field (the API server prunes or,
// strictly validating, refuses others); metadata is checked as ObjectMeta.
const nadSchema = {
  type: "object",
  additionalProperties: false,
  required: ["apiVersion", "kind", "metadata"],
  properties: {
    apiVersion: { type: "string", enum: ["k8s.cni.cncf.io/v1"] },
    kind: { type: "string", enum: ["NetworkAttachmentDefinition"] },
    metadata: {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", maxLength: 253 },
        namespace: { type: "string" },
        labels: { type: "object", additionalProperties: { type: "string" } },
        annotations: { type: "object", additionalProperties: { type: "string" } },
      },
    },
    spec: {
      type: "object",
      additionalProperties: false,
      properties: { config: { type: "string" } },
    },
  },
};
const validateNadSchema = new Ajv({ allErrors: true, strict: false }).compile(nadSchema);

// What the SR-IOV CNI reads from spec.config: a CNI network configuration.
function validateNad(object) {
  if (!validateNadSchema(object)) {
    throw new Error(
      validateNadSchema.errors
        .map((e) => `data${e.instancePath} ${e.message}` +
          (e.params.additionalProperty ? ` ("${e.params.additionalProperty}")` : ""))
        .join(", "),
    );
  }
  let config;
  try {
    config = JSON.parse(object.spec.config);
  } catch (e) {
    throw new Error(`spec.config is not JSON: ${e.message}`);
  }
  for (const key of ["cniVersion", "name", "type"]) {
    if (typeof config[key] !== "string" || config[key] === "") {
      throw new Error(`spec.config: CNI configuration without a "${key}" string`);
    }
  }
  if (config.name !== object.metadata.name) {
    throw new Error(`spec.config: name "${config.name}" is not the object's ("${object.metadata.name}")`);
  }
  const resource = (object.metadata.annotations || {})["k8s.v1.cni.cncf.io/resourceName"];
  if (config.type === "sriov" && !resource) {
    throw new Error("an sriov network needs the k8s.v1.cni.cncf.io/resourceName annotation");
  }
}

const input = JSON.parse(fs.readFileSync(0, "utf8"));
let failed = 0;
for (const { source, object } of input) {
  const key = `${object.apiVersion}/${object.kind}`;
  const name = `${source}: ${object.kind} ${(object.metadata || {}).name}`;
  try {
    if (key === "k8s.cni.cncf.io/v1/NetworkAttachmentDefinition") {
      validateNad(object);
      const unknown = fields.check(objectMeta, "ObjectMeta", object.metadata);
      if (unknown.length) throw new Error(unknown.join("; "));
    } else if (models[key]) {
      const Model = require(models[key])[object.kind];
      new Model(object).validate();
      const unknown = fields.check(models[key], object.kind, object);
      if (unknown.length) throw new Error(unknown.join("; "));
    } else {
      throw new Error(`no validator for ${key}: add one to test/kubernetes/validate.js`);
    }
    console.log(`valid: ${name}`);
  } catch (e) {
    console.log(`INVALID: ${name}: ${e.message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
