// The draft page's upload: a resource is made through the API, then the file goes straight to storage
// with a presigned PUT (so the progress bar is the real transfer), and upload-complete starts the pipeline.
// Without this script the form stays hidden and the page offers links only.
const form = document.querySelector('form.upload-form');
if (form) {
  form.hidden = false;
  const progress = form.querySelector('progress');
  const status = form.querySelector('[role="status"]');
  const say = (text) => (status.textContent = text);

  async function api(path, body) {
    const reply = await fetch(`/api/v1${path}`, {
      method: 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await reply.json().catch(() => ({}));
    if (!reply.ok) throw new Error(json.detail || json.title || `HTTP ${reply.status}`);
    return json;
  }

  function put(signed, file) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open(signed.method, signed.url);
      for (const [name, value] of Object.entries(signed.headers)) request.setRequestHeader(name, value);
      request.upload.addEventListener('progress', (event) => {
        if (!event.lengthComputable) return;
        progress.value = Math.round((event.loaded / event.total) * 100);
        say(`Uploading: ${progress.value}%`);
      });
      request.addEventListener('load', () => (request.status < 300 ? resolve() : reject(new Error(`storage answered ${request.status}`))));
      request.addEventListener('error', () => reject(new Error('the connection to storage failed')));
      request.send(file);
    });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = form.querySelector('input[type="file"]').files[0];
    if (!file) return;
    const button = form.querySelector('button');
    button.disabled = true;
    try {
      const extension = file.name.includes('.') ? file.name.split('.').pop().toUpperCase() : null;
      say('Creating the resource…');
      const resource = await api(`/packages/${form.dataset.dataset}/resources`, { urlType: 'upload', name: file.name, format: extension });
      const signed = await api(`/resources/${resource.id}/upload-url`, {
        filename: file.name,
        contentType: file.type || 'application/octet-stream',
        size: file.size,
      });
      await put(signed, file);
      say('Uploaded; starting the pipeline…');
      await api(`/resources/${resource.id}/upload-complete`);
      window.location.assign(`${form.dataset.resourceBase}${resource.id}`);
    } catch (err) {
      say(`The upload failed: ${err.message}`);
      button.disabled = false;
    }
  });
}
