// Validates Kubernetes objects offline against their OpenAPI schemas: the core and apps kinds
// with kubernetes-models, the ServiceMonitor with @kubernetes-models/prometheus-operator (both
// run validators generated from the schemas), the Multus NetworkAttachmentDefinition with ajv and
// the openAPIV3Schema of its CRD (no model package exists for it).
// Input on stdin: a JSON array of {source, object}. Output: one line per object; exit 1 if any
// object is invalid or of a kind without a validator.
"use strict";

const fs = require("fs");
const Ajv = require("ajv");

const models = {
  "v1/Namespace": () => require("kubernetes-models/v1/Namespace").Namespace,
  "v1/Service": () => require("kubernetes-models/v1/Service").Service,
  "v1/ConfigMap": () => require("kubernetes-models/v1/ConfigMap").ConfigMap,
  "apps/v1/DaemonSet": () => require("kubernetes-models/apps/v1/DaemonSet").DaemonSet,
  "monitoring.coreos.com/v1/ServiceMonitor": () =>
    require("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor")
      .ServiceMonitor,
};

// The CRD's schema as Multus ships it (deployments/multus-daemonset.yml,
// network-attachment-definitions.k8s.cni.cncf.io, version v1).
const nadSchema = {
  type: "object",
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
      properties: { config: { type: "string" } },
    },
  },
};
const validateNadSchema = new Ajv({ allErrors: true, strict: false }).compile(nadSchema);

// What the SR-IOV CNI reads from spec.config: a CNI network configuration.
function validateNad(object) {
  if (!validateNadSchema(object)) {
    throw new Error(
      validateNadSchema.errors.map((e) => `data${e.instancePath} ${e.message}`).join(", "),
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
    } else if (models[key]) {
      const Model = models[key]();
      new Model(object).validate();
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
