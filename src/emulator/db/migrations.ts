/**
 * The emulator's schema, as an ordered list of migrations. Each runs once, inside a
 * transaction, and is recorded in `schema_migrations`. Never edit a released migration:
 * append a new one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE emulator_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        public_namespace TEXT NOT NULL,
        created_on INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX organizations_namespace ON organizations(public_namespace) WHERE public_namespace <> '';

      CREATE TABLE locations (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        created_on INTEGER NOT NULL
      );
      CREATE INDEX locations_by_org ON locations(organization_id);

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        salt BLOB NOT NULL,
        hash BLOB NOT NULL,
        created_on INTEGER NOT NULL
      );
      CREATE TABLE api_key_grants (
        key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'operator')),
        resource_type TEXT NOT NULL CHECK (resource_type IN ('organization', 'location', 'robot')),
        resource_id TEXT NOT NULL,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        PRIMARY KEY (key_id, resource_type, resource_id)
      );
      CREATE TABLE access_tokens (
        token_hash TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX access_tokens_by_expiry ON access_tokens(expires_at);

      CREATE TABLE robots (
        id TEXT PRIMARY KEY,
        location_id TEXT NOT NULL REFERENCES locations(id),
        name TEXT NOT NULL,
        created_on INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX robots_by_location ON robots(location_id, name);

      CREATE TABLE robot_parts (
        id TEXT PRIMARY KEY,
        robot_id TEXT NOT NULL REFERENCES robots(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        main_part INTEGER NOT NULL,
        secret TEXT NOT NULL,
        config TEXT NOT NULL,
        created_on INTEGER NOT NULL,
        last_updated INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX robot_parts_by_robot ON robot_parts(robot_id, name);

      CREATE TABLE module_deployments (
        part_id TEXT NOT NULL REFERENCES robot_parts(id) ON DELETE CASCADE,
        module_name TEXT NOT NULL,
        module_id TEXT NOT NULL,
        policy TEXT NOT NULL,
        deployed_version TEXT NOT NULL,
        restart_count INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (part_id, module_name)
      );
      CREATE INDEX module_deployments_by_module ON module_deployments(module_id);

      CREATE TABLE datasets (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        created_on INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX datasets_by_org ON datasets(organization_id, name);

      CREATE TABLE registry_items (
        item_id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('module', 'ml_training')),
        visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
        description TEXT NOT NULL,
        -- Training scripts: the ModelType and ModelFramework numbers of the models they produce.
        model_type INTEGER NOT NULL DEFAULT 0,
        model_framework INTEGER NOT NULL DEFAULT 0,
        created_on INTEGER NOT NULL,
        updated_on INTEGER NOT NULL
      );
      CREATE TABLE registry_versions (
        item_id TEXT NOT NULL REFERENCES registry_items(item_id) ON DELETE CASCADE,
        version TEXT NOT NULL,
        models TEXT NOT NULL,
        created_on INTEGER NOT NULL,
        PRIMARY KEY (item_id, version)
      );

      CREATE TABLE training_jobs (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        dataset_id TEXT NOT NULL,
        model_name TEXT NOT NULL,
        model_version TEXT NOT NULL,
        model_type INTEGER NOT NULL,
        model_framework INTEGER NOT NULL,
        is_custom_job INTEGER NOT NULL,
        registry_item_id TEXT NOT NULL,
        registry_item_version TEXT NOT NULL,
        status INTEGER NOT NULL,
        error_code INTEGER,
        error_message TEXT,
        created_on INTEGER NOT NULL,
        last_modified INTEGER NOT NULL,
        training_started INTEGER,
        training_ended INTEGER,
        synced_model_id TEXT NOT NULL,
        tags TEXT NOT NULL,
        arguments TEXT NOT NULL,
        container_version TEXT NOT NULL
      );
      -- One job per model version of a model in an organization (ALREADY_EXISTS otherwise).
      CREATE UNIQUE INDEX training_jobs_model_version ON training_jobs(organization_id, model_name, model_version);
      -- Listing an organization's jobs, all or by status, newest first.
      CREATE INDEX training_jobs_by_org_status ON training_jobs(organization_id, status, created_on);
      CREATE INDEX training_jobs_by_org ON training_jobs(organization_id, created_on);

      CREATE TABLE training_job_logs (
        job_id TEXT NOT NULL REFERENCES training_jobs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        level TEXT NOT NULL,
        time INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (job_id, seq)
      );

      -- Models produced by completed jobs; they stay when the job record is deleted.
      CREATE TABLE trained_models (
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        model_name TEXT NOT NULL,
        model_version TEXT NOT NULL,
        synced_model_id TEXT NOT NULL,
        job_id TEXT NOT NULL,
        created_on INTEGER NOT NULL,
        PRIMARY KEY (organization_id, model_name, model_version)
      );
    `,
  },
  {
    version: 2,
    name: 'training job listings in index order',
    sql: `
      -- The id breaks ties of created_on in the listing order, so SQLite reads the index in
      -- order instead of sorting every equal-time run (ORDER BY created_on DESC, id DESC).
      DROP INDEX training_jobs_by_org_status;
      DROP INDEX training_jobs_by_org;
      CREATE INDEX training_jobs_by_org_status ON training_jobs(organization_id, status, created_on, id);
      CREATE INDEX training_jobs_by_org ON training_jobs(organization_id, created_on, id);
    `,
  },
  {
    version: 3,
    name: 'registry namespaces claimed by publishing',
    sql: `
      -- Offline convenience: a namespace no organization has becomes, at its first publish,
      -- a namespace of the publishing key's organization, besides its public namespace.
      CREATE TABLE claimed_namespaces (
        namespace TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        claimed_on INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'machine part configs kept encoded',
    sql: `
      -- The config as an encoded google.protobuf.Struct, written with the JSON text, so a
      -- part read sends it without encoding it again. NULL (parts written before this
      -- version, new parts with the empty config): encoded from the JSON text when read.
      ALTER TABLE robot_parts ADD COLUMN config_struct BLOB;
    `,
  },
  {
    version: 5,
    name: 'jobs that move by themselves, trained models in the registry, part history',
    sql: `
      -- Jobs the clock moves (PENDING 1, IN_PROGRESS 2, CANCELING 6), by their last transition.
      CREATE INDEX training_jobs_moving ON training_jobs(last_modified) WHERE status IN (1, 2, 6);

      -- A trained model is an ML model registry item of its organization; each version keeps
      -- what the job that produced it trained.
      ALTER TABLE trained_models ADD COLUMN model_type INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE trained_models ADD COLUMN model_framework INTEGER NOT NULL DEFAULT 0;
      UPDATE trained_models SET
        model_type = COALESCE((SELECT j.model_type FROM training_jobs j WHERE j.id = trained_models.job_id), 0),
        model_framework = COALESCE((SELECT j.model_framework FROM training_jobs j WHERE j.id = trained_models.job_id), 0);

      -- Every config write of a part: the part as it was before the edit, and who edited it.
      CREATE TABLE robot_part_history (
        part_id TEXT NOT NULL REFERENCES robot_parts(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        robot_id TEXT NOT NULL,
        edited_on INTEGER NOT NULL,
        edited_by TEXT NOT NULL,
        old_name TEXT NOT NULL,
        old_config TEXT NOT NULL,
        old_config_struct BLOB,
        old_last_updated INTEGER NOT NULL,
        PRIMARY KEY (part_id, seq)
      );
    `,
  },
  {
    version: 6,
    name: 'simulated machines check in',
    sql: `
      -- A part's last check-in and what its machine reported running then (JSON), and
      -- whether a restart was asked for since (cleared by the next check-in).
      CREATE TABLE part_checkins (
        part_id TEXT PRIMARY KEY REFERENCES robot_parts(id) ON DELETE CASCADE,
        last_access INTEGER,
        restart_requested INTEGER NOT NULL DEFAULT 0,
        run TEXT
      );
      -- The machine's own log lines: module starts, crashes, config errors.
      CREATE TABLE part_logs (
        id INTEGER PRIMARY KEY,
        part_id TEXT NOT NULL REFERENCES robot_parts(id) ON DELETE CASCADE,
        time INTEGER NOT NULL,
        level TEXT NOT NULL,
        logger TEXT NOT NULL,
        message TEXT NOT NULL
      );
      CREATE INDEX part_logs_by_part ON part_logs(part_id, id);
    `,
  },
  {
    version: 7,
    name: 'nested locations',
    sql: `
      -- A location may sit inside another of its organization; NULL for a top-level one.
      -- A location holding others cannot be deleted (the handler refuses it first).
      ALTER TABLE locations ADD COLUMN parent_location_id TEXT REFERENCES locations(id);
    `,
  },
  {
    version: 8,
    name: 'registry packages',
    sql: `
      -- Packages uploaded through CreatePackage; the id is <organization id>/<name>, one row per version.
      -- Trained models are packages too, read from trained_models.
      CREATE TABLE packages (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        type TEXT NOT NULL,
        platform TEXT NOT NULL,
        metadata TEXT NOT NULL,
        files TEXT NOT NULL,
        size INTEGER NOT NULL,
        checksum TEXT NOT NULL,
        contents BLOB NOT NULL,
        created_on INTEGER NOT NULL,
        PRIMARY KEY (organization_id, name, version)
      );
    `,
  },
  {
    version: 9,
    name: 'fragments',
    sql: `
      -- A fragment of an organization: its current name and visibility, its latest revision
      -- and when it last changed (a save or a tag moved).
      CREATE TABLE fragments (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        visibility INTEGER NOT NULL,
        created_on INTEGER NOT NULL,
        last_updated INTEGER NOT NULL,
        latest_revision INTEGER NOT NULL
      );
      CREATE INDEX fragments_by_org ON fragments(organization_id);
      -- Every save of a fragment: revision 1 is its creation. Who saved it, and what it was then.
      CREATE TABLE fragment_revisions (
        fragment_id TEXT NOT NULL REFERENCES fragments(id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,
        name TEXT NOT NULL,
        visibility INTEGER NOT NULL,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        edited_by TEXT NOT NULL,
        PRIMARY KEY (fragment_id, revision)
      );
      CREATE TABLE fragment_tags (
        fragment_id TEXT NOT NULL REFERENCES fragments(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        revision INTEGER NOT NULL,
        PRIMARY KEY (fragment_id, tag)
      );
      -- Counts every change of any fragment (save, tag, delete): machines resolve again when it moves.
      CREATE TABLE fragment_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
      INSERT INTO fragment_generation (id, generation) VALUES (1, 0);
    `,
  },
  {
    version: 10,
    name: 'part configs stored as sent or from a Struct',
    sql: `
      -- 1 when the config was written as JSON text and is kept as sent (key order, integers);
      -- 0 when it was stored from a Struct (keys sorted, numbers as doubles).
      ALTER TABLE robot_parts ADD COLUMN config_as_sent INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE robot_part_history ADD COLUMN old_config_as_sent INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 11,
    name: 'module version deprecation and minimum viam-server; the viam-server a part reports',
    sql: `
      -- A deprecated version has deprecated_at (ms) and its message; NULL: not deprecated.
      ALTER TABLE registry_versions ADD COLUMN deprecated_at INTEGER;
      ALTER TABLE registry_versions ADD COLUMN deprecated_message TEXT NOT NULL DEFAULT '';
      ALTER TABLE registry_versions ADD COLUMN min_viam_server_version TEXT NOT NULL DEFAULT '';
      -- NULL: the emulated viam-server's version; '' reports none.
      ALTER TABLE robot_parts ADD COLUMN viam_server_version TEXT;
    `,
  },
  {
    version: 12,
    name: 'trigger liveness and notification times',
    sql: `
      -- Each part's online state as its triggers last saw it: 1 online, 0 offline, -1 not seen
      -- yet by triggers (parts that checked in before triggers fired: taken as seen, nothing fires).
      CREATE TABLE part_liveness (
        part_id TEXT PRIMARY KEY REFERENCES robot_parts(id) ON DELETE CASCADE,
        online INTEGER NOT NULL
      );
      INSERT INTO part_liveness (part_id, online) SELECT part_id, -1 FROM part_checkins WHERE last_access IS NOT NULL;
      -- When each notification (by its index) of a part's trigger last went out.
      CREATE TABLE trigger_notifications (
        part_id TEXT NOT NULL REFERENCES robot_parts(id) ON DELETE CASCADE,
        trigger_name TEXT NOT NULL,
        notification INTEGER NOT NULL,
        last_sent INTEGER NOT NULL,
        PRIMARY KEY (part_id, trigger_name, notification)
      );
    `,
  },
  {
    version: 13,
    name: 'dataset types',
    sql: `
      -- viam.app.dataset.v1.DatasetType's number: 0 binary data (every dataset made before types), 1 sequences.
      ALTER TABLE datasets ADD COLUMN type INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 14,
    name: 'organization default fragments',
    sql: `
      -- The fragments every machine created in the organization starts with importing: a JSON
      -- list of machine config imports ({id, version?, prefix?, variables?}), in order.
      ALTER TABLE organizations ADD COLUMN default_fragments TEXT NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 15,
    name: 'data pipelines and their runs',
    sql: `
      -- stages: a JSON array of the stages' BSON documents, base64 each, as sent.
      -- data_source_type: the wire number sent; NULL when none was.
      -- runs_through (ms): the schedule's ticks up to it have a run recorded, or passed while disabled.
      CREATE TABLE data_pipelines (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        stages TEXT NOT NULL,
        schedule TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        enable_backfill INTEGER NOT NULL,
        data_source_type INTEGER,
        created_on INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        runs_through INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX data_pipelines_name ON data_pipelines(organization_id, name);
      -- status: the wire number (3 completed, 4 failed); times in ms.
      CREATE TABLE data_pipeline_runs (
        id TEXT PRIMARY KEY,
        pipeline_id TEXT NOT NULL REFERENCES data_pipelines(id) ON DELETE CASCADE,
        start_time INTEGER NOT NULL,
        end_time INTEGER NOT NULL,
        data_start_time INTEGER NOT NULL,
        data_end_time INTEGER NOT NULL,
        status INTEGER NOT NULL,
        error_message TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX data_pipeline_runs_pipeline ON data_pipeline_runs(pipeline_id, start_time);
    `,
  },
  {
    version: 16,
    name: 'tabular data the simulated machines capture',
    sql: `
      -- One captured point: the resource (its short name and API), the method, when, and its payload as JSON.
      CREATE TABLE captured_tabular (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        part_id TEXT NOT NULL REFERENCES robot_parts(id) ON DELETE CASCADE,
        resource_name TEXT NOT NULL,
        resource_subtype TEXT NOT NULL,
        method_name TEXT NOT NULL,
        time INTEGER NOT NULL,
        payload TEXT NOT NULL
      );
      CREATE INDEX captured_tabular_by_source ON captured_tabular(part_id, resource_name, method_name, time);
    `,
  },
];
