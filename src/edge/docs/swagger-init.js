// Starts Swagger UI on the service's own OpenAPI document (a file, so the page's CSP needs no inline script).
window.onload = () => {
  window.ui = SwaggerUIBundle({ url: '/swagger/json', dom_id: '#swagger-ui', deepLinking: true })
}
